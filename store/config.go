package store

// SetSyncPolicy changes when writes reach the disk (CONFIG SET appendfsync).
// It takes effect for the next commit: with always, that commit waits for
// a shared fsync; with everysec, the once-a-second sync picks the file up.
func (db *DB) SetSyncPolicy(s Sync) {
	db.policy.Store(int32(s))
}
