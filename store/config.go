package store

import "github.com/tidwall/buntdb"

// SetSyncPolicy changes when writes reach the disk (CONFIG SET appendfsync).
func (db *DB) SetSyncPolicy(s Sync) error {
	var cfg buntdb.Config
	if err := db.bdb.ReadConfig(&cfg); err != nil {
		return err
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
		return err
	}
	db.mu.Lock()
	db.opts.Sync = s
	db.mu.Unlock()
	return nil
}
