package store

// A cluster checks that its nodes hold the same store (cluster/digest.go):
// the leader hashes its store when nothing of its own is on its way to the
// cluster, and puts the hash in the log before any further frame; each
// follower, applying that entry, hashes its own store, then at the same
// log index, and compares.

// DigestSettled hashes the store while no local transaction runs and none
// is on its way to the data file (in a cluster: every frame this node
// proposed is committed and applied), and calls then with the hash before
// transactions go on: what then puts in the log comes before any later
// frame. ok is false when local writes were still on their way: try again
// later.
func (db *DB) DigestSettled(then func(digest string)) (ok bool) {
	j := db.jr
	if j == nil {
		return false
	}
	j.flush(j.newest.Load())
	db.txMu.Lock()
	defer db.txMu.Unlock()
	if j.written.Load() != j.seq.Load() {
		return false
	}
	then(db.digestLocked())
	return true
}

// Settled reports whether no local write is on its way to the data file:
// the store holds only what the cluster's log holds.
func (db *DB) Settled() bool {
	j := db.jr
	return j == nil || j.written.Load() == j.seq.Load()
}

// DivergeKeyForTest sets string key of database 0 to value in this store
// alone, as DivergeForTest does: for the cluster's test command
// (QLESSD_TEST_DIVERGE_COMMAND) only.
func (db *DB) DivergeKeyForTest(key, value string) {
	db.txMu.Lock()
	defer db.txMu.Unlock()
	db.applyRecords([]record{{op: opSet, k: metaKey(0, key), v: Meta{Type: TypeString, Payload: value}.encode()}}, nil)
	db.shared.drop()
}

// DivergeForTest changes an item of this store alone, in memory, as a
// replica that parted from its leader would have: for the cluster's test
// hook (QLESSD_TEST_DIVERGE) only.
func (db *DB) DivergeForTest(item, value string) {
	db.txMu.Lock()
	defer db.txMu.Unlock()
	db.applyRecords([]record{{op: opSet, k: item, v: value}}, nil)
}
