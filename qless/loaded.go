package qless

import (
	"strings"

	"github.com/qlessd/qlessd/store"
)

// CountLoaded counts the keys of every database, and the qless jobs among
// them (a job is the hash ql:j:<jid>), for the start-up log.
func CountLoaded(db *store.DB) (keys, jobs int) {
	prefix := jobKey("")
	db.View(func(tx *store.Tx) error {
		for _, c := range tx.KeyCount() {
			keys += c[0]
		}
		for i := 0; i < db.Databases(); i++ {
			tx.Select(i)
			tx.ScanKeys(prefix, func(key string, t store.Type) bool {
				if !strings.HasPrefix(key, prefix) {
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
