package qless

import (
	"strconv"

	"github.com/qlessd/qlessd/store"
)

// Rebind gives every bound worker that no connection here holds its grace
// period from now, as a start does: a cluster node that starts leading
// calls it, the workers bound on the old leader having lost their
// connections with it.
func Rebind(srv Server) {
	var saved []string
	srv.Store().View(func(tx *store.Tx) error {
		var err error
		saved, err = tx.HGetAll(boundKey)
		return err
	})
	b := bindings
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i+1 < len(saved); i += 2 {
		if bd := b.byWorker[saved[i]]; bd != nil && len(bd.sessions) > 0 {
			continue
		}
		grace, _ := strconv.ParseFloat(saved[i+1], 64)
		bd := &binding{sessions: map[int64]bool{}, grace: seconds(grace)}
		b.byWorker[saved[i]] = bd
		b.startGrace(saved[i], bd)
	}
}
