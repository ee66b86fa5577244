package store

import (
	"sync"

	"github.com/tidwall/buntdb"
)

// applySync serializes applying sync changes; each application reads the
// latest mode, so quick successive changes end in the last one.
var applySync sync.Mutex

// SetSyncPolicy changes when writes reach the disk (CONFIG SET appendfsync).
// buntdb's config calls take its own lock, which a running transaction (a
// MULTI or a script that issues CONFIG) holds, so the change is applied to
// buntdb in the background; SyncPolicy reports the new mode at once.
func (db *DB) SetSyncPolicy(s Sync) {
	db.mu.Lock()
	db.opts.Sync = s
	db.mu.Unlock()
	go func() {
		applySync.Lock()
		defer applySync.Unlock()
		s := db.SyncPolicy()
		var cfg buntdb.Config
		if err := db.bdb.ReadConfig(&cfg); err != nil {
			db.log.Error("appendfsync change failed", "err", err)
			return
		}
		switch s {
		case SyncAlways:
			cfg.SyncPolicy = buntdb.Always
		case SyncNo:
			cfg.SyncPolicy = buntdb.Never
		default:
			cfg.SyncPolicy = buntdb.EverySecond
		}
		if err := db.bdb.SetConfig(cfg); err != nil {
			db.log.Error("appendfsync change failed", "err", err)
		}
	}()
}
