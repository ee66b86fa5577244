package store

import "time"

// everysecLoop is appendfsync everysec: once a second, if the data file
// grew, fsync it through the syncer's own descriptor. Like Redis's
// background fsync it runs beside the clients: buntdb's lock is not held,
// so commands go on while the disk catches up. A failed fsync is logged by
// the syncer and retried on the next tick.
func (db *DB) everysecLoop() {
	defer db.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			if db.jr.failed.Load() {
				// Retry what a failed write left pending.
				db.jr.refuses()
			}
			if db.SyncPolicy() == SyncEverySec {
				db.syncer.syncFile(0)
			}
		}
	}
}
