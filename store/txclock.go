package store

import "time"

// Tick starts the next command of a transaction that runs several (the
// server batches concurrent clients' writes): the command sees the time it
// runs at, not the time the transaction began, and gets the metadata cache
// to itself, since the cache stops growing once full.
func (tx *Tx) Tick() {
	tx.now = time.Now().UnixMilli()
	tx.dropMetaCache()
}
