package server

import (
	"strings"

	"github.com/qlessd/qlessd/store"
)

// Loaded counts the keys of every database, and the qless jobs among
// them (a job is the hash ql:j:<jid>), for the start-up log.
func (s *Server) Loaded() (keys, jobs int) {
	s.db.View(func(tx *store.Tx) error {
		for _, c := range tx.KeyCount() {
			keys += c[0]
		}
		for i := 0; i < s.db.Databases(); i++ {
			tx.Select(i)
			tx.ScanKeys("ql:j:", func(key string, t store.Type) bool {
				if !strings.HasPrefix(key, "ql:j:") {
					return false
				}
				if t == store.TypeHash {
					jobs++
				}
				return true
			})
		}
		return nil
	})
	return keys, jobs
}
