package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/buntdb"
)

// Snapshots of a cluster node's store are data files: what a rewrite
// writes. One taken while writers go on may hold changes made after the
// point it stands for; the cluster replays every entry after that point
// on top, and records set or delete whole items, so the result is the
// same (as journal_rewrite.go's tail).

// errSnapshotTakenBack gives up a snapshot that may hold a write the
// cluster did not take.
var errSnapshotTakenBack = errors.New("a write was taken back while the snapshot was copied; the next one will be taken later")

// afterSnapshotCopy lets tests act once a snapshot's items are copied.
var afterSnapshotCopy = func() {}

// WriteSnapshot writes every item, in frames, to w. On a leader the copy
// may hold writes still on their way to the cluster: it waits for them,
// and gives the snapshot up if any was taken back, as a rewrite does.
func (db *DB) WriteSnapshot(w io.Writer) error {
	j := db.jr
	if j == nil {
		return errNoDataFile
	}
	backs := j.takeBacks.Load()
	if _, _, err := db.copyItems(w); err != nil {
		return err
	}
	afterSnapshotCopy()
	upto := j.seq.Load()
	for deadline := time.Now().Add(time.Minute); j.written.Load() < upto; {
		if time.Now().After(deadline) {
			return errSnapshotTakenBack
		}
		time.Sleep(time.Millisecond)
	}
	if j.takeBacks.Load() != backs {
		return errSnapshotTakenBack
	}
	return nil
}

// SyncDataFile makes what the data file holds durable.
func (db *DB) SyncDataFile() error {
	if db.syncer == nil {
		return nil
	}
	return db.syncer.syncFile(0)
}

// RestoreSnapshot replaces the store's contents, and the data file, with
// a snapshot (WriteSnapshot's output). Local writes are refused from then
// on, as for ApplyReplicated.
func (db *DB) RestoreSnapshot(r io.Reader) error {
	j := db.jr
	if j == nil {
		return errNoDataFile
	}
	tmp := filepath.Join(filepath.Dir(db.path), "temp-snapshot-"+filepath.Base(db.path))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("create snapshot file: %w", err)
	}
	installed := false
	defer func() {
		if !installed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	size, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("write snapshot file: %w", err)
	}
	nb, err := buntdb.Open(":memory:")
	if err != nil {
		return err
	}
	_, link, sets, err := loadJournal(tmp, nb, db.log)
	if err == nil {
		// Loading drops a torn end.
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if err != nil {
		nb.Close()
		return err
	}
	if err := db.settleAsReplica(); err != nil {
		nb.Close()
		return err
	}
	defer j.wmu.Unlock()
	if err := os.Rename(tmp, db.path); err != nil {
		nb.Close()
		return fmt.Errorf("rename snapshot file: %w", err)
	}
	installed = true
	db.swapItems(nb, sets)
	old := j.f
	j.f, j.size, j.cut, j.link = f, size, false, link
	old.Close()
	if err := syncDir(filepath.Dir(db.path)); err != nil {
		db.log.Error("fsync of the data directory after installing a snapshot failed", "err", err)
	}
	if db.syncer != nil {
		db.syncer.dropReplaced()
	}
	return nil
}

// swapItems makes nb the store's items, their sorted sets indexed (sets:
// the indexes loading built), and closes the old ones.
func (db *DB) swapItems(nb *buntdb.DB, sets map[dbKey]*zindex) {
	items := sumItems(nb) // before the lock: nb is not shared yet
	db.txMu.Lock()
	old := db.bdb
	db.bdb, db.items = nb, items
	db.zidx.mu.Lock()
	db.zidx.replace(sets) // links each index, adding its members to the digest
	db.zidx.mu.Unlock()
	db.shared.drop()
	nb.Update(func(btx *buntdb.Tx) error {
		db.indexZSets(btx, false)
		return nil
	})
	db.txMu.Unlock()
	old.Close()
}
