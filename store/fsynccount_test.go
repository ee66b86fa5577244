package store

func fsyncCount(db *DB) int64 {
	if db.syncer == nil {
		return -1
	}
	n, _ := db.syncer.syncStats()
	return n
}
