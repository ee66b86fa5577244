// Package store keeps Redis data types in buntdb. It is the only package that
// imports buntdb; everything above it sees Redis keys, types and values.
package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Sync says when writes reach the disk, as redis-server's appendfsync.
type Sync int

const (
	SyncEverySec Sync = iota
	SyncAlways
	SyncNo
)

// ParseSync reads an appendfsync value.
func ParseSync(s string) (Sync, error) {
	switch s {
	case "everysec":
		return SyncEverySec, nil
	case "always":
		return SyncAlways, nil
	case "no":
		return SyncNo, nil
	}
	return 0, fmt.Errorf("invalid appendfsync value %q (want always, everysec or no)", s)
}

func (s Sync) String() string {
	switch s {
	case SyncAlways:
		return "always"
	case SyncNo:
		return "no"
	}
	return "everysec"
}

// Options configures Open.
type Options struct {
	Dir       string // data directory; "" or ":memory:" keeps nothing on disk
	Sync      Sync
	Databases int
	Logger    *slog.Logger
	Rewrite   *RewriteSettings // nil: Redis's defaults
}

// DataFile is the name of the append-only data file inside Dir.
const DataFile = "qlessd.db"

// DB is an open store.
type DB struct {
	bdb       *buntdb.DB
	opts      Options
	path      string
	log       *slog.Logger
	stop      chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	lastSave  time.Time
	onCommit  func(touched []KeyRef)
	dirtyMu   sync.Mutex
	dirty     int64 // writes since the last save, for INFO
	startTime time.Time
	jr        *journal     // the data file; nil for ":memory:"
	latency   latencyHook  // see OnLatency
	syncer    *syncer      // nil for ":memory:"
	policy    atomic.Int32 // a Sync: appendfsync, changed by CONFIG SET
	zidx      zindexes     // in-memory order of sorted sets kept as items
	rw        rewriter     // automatic rewrites of the data file (rewrite.go)
	unchecked bool         // the data file had records without checksums at open
	lock      *dirLock     // the data directory's; nil for ":memory:"
	shared    sharedMetas  // metadata of recently used keys (metashared.go)
	items     storeDigest  // the items' share of the digest (digest.go); txMu
	// txMu mirrors buntdb's lock (writers exclusive, readers shared) so
	// that a failed commit can drop the caches above before anyone reads
	// them: buntdb lets go of its lock as it returns the error.
	txMu sync.RWMutex
	// readOnly refuses local writes: a cluster node that does not lead
	// (replicate.go). Changed with txMu held.
	readOnly atomic.Bool
}

// KeyRef names a key in one database.
type KeyRef struct {
	DB  int
	Key string
}

// Open opens (creating if needed) the store in opts.Dir.
func Open(opts Options) (*DB, error) {
	if opts.Databases <= 0 {
		opts.Databases = 16
	}
	if opts.Databases > 256 {
		return nil, fmt.Errorf("databases must be between 1 and 256, got %d", opts.Databases)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	db := &DB{opts: opts, log: opts.Logger, stop: make(chan struct{}), startTime: time.Now()}
	path := ":memory:"
	if opts.Dir != "" && opts.Dir != ":memory:" {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
		path = filepath.Join(opts.Dir, DataFile)
		lock, err := lockDir(opts.Dir)
		if err != nil {
			return nil, err
		}
		db.lock = lock
	}
	db.path = path
	// buntdb keeps the items in memory; the journal keeps the data file.
	bdb, err := buntdb.Open(":memory:")
	if err != nil {
		db.lock.release()
		return nil, err
	}
	if path != ":memory:" {
		unchecked, link, sets, err := loadJournal(path, bdb, db.log)
		if err != nil {
			bdb.Close()
			db.lock.release()
			return nil, err
		}
		db.unchecked = unchecked
		db.zidx.replace(sets) // links each index, adding its members to the digest
		if db.jr, err = openJournal(path, db.log, link); err != nil {
			bdb.Close()
			db.lock.release()
			return nil, err
		}
		db.jr.takeBack = db.takeBack
		db.jr.latency = &db.latency
	}
	db.policy.Store(int32(opts.Sync))
	db.bdb, db.items = bdb, sumItems(bdb)
	if err := db.loadZSets(); err != nil {
		db.closeFiles()
		return nil, err
	}
	if db.jr != nil {
		// loadZSets may have written the layout marker.
		if err := db.jr.flush(db.jr.newest.Load()); err != nil {
			db.closeFiles()
			return nil, err
		}
	}
	db.lastSave = time.Now()
	if path != ":memory:" {
		db.syncer = newSyncer(path, db.log)
		db.syncer.written = db.jr.written.Load
		db.syncer.latency = &db.latency
		if opts.Sync == SyncAlways {
			// The file may have just been created: make it and its
			// directory entry durable before the first reply.
			if err := db.syncer.syncFile(0); err != nil {
				db.closeFiles()
				return nil, err
			}
		}
	}
	rw := RewriteSettings{Percentage: defaultRewritePercentage, MinSize: defaultRewriteMinSize}
	if opts.Rewrite != nil {
		rw = *opts.Rewrite
	}
	db.SetRewritePolicy(rw.Percentage, rw.MinSize)
	db.rewrote()
	db.startBackground()
	return db, nil
}

// startBackground starts the sweeper, the once-a-second sync and the
// automatic rewrites, and a rewrite now if the data file had records
// without checksums: it gives every record one.
func (db *DB) startBackground() {
	db.wg.Add(1)
	go db.sweepLoop()
	if db.syncer != nil {
		db.wg.Add(2)
		go db.everysecLoop()
		go db.rewriteLoop()
	}
	if db.unchecked {
		db.log.Info("the data file has records without checksums or frames without links; rewriting it with chained frames", "path", db.path)
		go db.rewrite()
	}
}

// Databases returns how many database indexes exist.
func (db *DB) Databases() int { return db.opts.Databases }

// Path returns the data file path, or ":memory:".
func (db *DB) Path() string { return db.path }

// SyncPolicy returns the configured appendfsync mode.
func (db *DB) SyncPolicy() Sync {
	return Sync(db.policy.Load())
}

// OnCommit registers a function called after every write transaction that
// changed keys, outside the store lock, with the keys it touched. The server
// uses it to wake blocked clients and to invalidate WATCHes. fn must not
// keep touched past its return: a follower reuses it for the next frame.
func (db *DB) OnCommit(fn func(touched []KeyRef)) { db.onCommit = fn }

// Update runs fn in a write transaction. The transaction always commits what
// fn wrote, even when fn returns an error: like Redis, a command or script
// that fails part way keeps its earlier writes. Commands validate their
// arguments before writing so a rejected command writes nothing.
//
// Update returns once the transaction's changes are in the data file (with
// appendfsync always, synced): the caller replies after that.
func (db *DB) Update(fn func(tx *Tx) error) error {
	c, err := db.UpdateAsync(fn)
	if c.db == nil {
		return err
	}
	if werr := c.Wait(); werr != nil {
		return werr
	}
	return err
}

// Committed is a transaction that committed; Wait returns once its changes
// are as durable as appendfsync asks.
type Committed struct {
	db  *DB
	seq uint64
	o   *outcome // nil without a data file
	// own: the transaction wrote a frame of its own, which its Wait
	// waits for (in a cluster: which a majority took after it ran).
	own bool
}

// Wrote reports whether the transaction wrote anything of its own to the
// data file (in a cluster, to the log): one that only read waits for the
// writes before it, if any.
func (c Committed) Wrote() bool { return c.own }

// UpdateAsync is Update returning as soon as the transaction committed,
// before its changes reach the data file, so that the next transaction can
// run meanwhile. The caller must not reply before c.Wait returns. c is the
// zero Committed when nothing committed (err says why); otherwise err is
// fn's.
func (db *DB) UpdateAsync(fn func(tx *Tx) error) (c Committed, err error) {
	if db.jr != nil {
		if err := db.jr.refuses(); err != nil {
			return Committed{}, err
		}
	}
	var fnErr error
	var tx *Tx
	seq, o, own, err := db.commit(func(btx *buntdb.Tx) error {
		tx = newTx(db, btx, true)
		fnErr = fn(tx)
		return nil
	})
	if err != nil {
		return Committed{}, err
	}
	defer tx.release()
	touched := tx.touched
	if len(touched) > 0 {
		db.dirtyMu.Lock()
		db.dirty += int64(len(touched))
		db.dirtyMu.Unlock()
		if db.onCommit != nil {
			db.onCommit(touched)
		}
	}
	return Committed{db, seq, o, own}, fnErr
}

// Wait returns once the transaction's changes, and those of every earlier
// one, are in the data file, and with appendfsync always synced. When the
// write failed, the transaction was taken back and the error is a
// *WriteError.
func (c Committed) Wait() error {
	db := c.db
	if c.o != nil {
		if err := db.jr.flush(c.o); err != nil {
			return err
		}
	}
	if db.syncer != nil && db.SyncPolicy() == SyncAlways && db.syncer.synced.Load() < c.seq {
		return db.syncer.wait()
	}
	return nil
}

// commit runs a buntdb write transaction under txMu and returns the journal
// sequence and outcome its replies wait for (journal.seal). When it fails or panics,
// the shared metadata cache may hold what never committed: it is dropped
// before any other transaction can start. Sorted-set indexes are kept:
// buntdb commits what fn wrote even when it panics, which is what they
// hold, and its in-memory commit cannot fail.
func (db *DB) commit(fn func(btx *buntdb.Tx) error) (seq uint64, o *outcome, own bool, err error) {
	db.txMu.Lock()
	if db.readOnly.Load() {
		db.txMu.Unlock()
		return 0, nil, false, ReadOnlyError{}
	}
	start := time.Now()
	failed := true
	defer func() {
		if failed || err != nil {
			db.shared.drop()
		}
		db.rw.busyNs.Add(int64(time.Since(start)))
		db.txMu.Unlock()
	}()
	err = db.bdb.Update(func(btx *buntdb.Tx) (ferr error) {
		if db.jr == nil {
			return fn(btx)
		}
		returned := false
		before := db.jr.seq.Load() // txMu held: no other transaction seals
		defer func() {
			// buntdb commits unless fn returns an error, a panic
			// included: the journal keeps exactly what buntdb keeps.
			if returned && ferr != nil {
				db.jr.discard()
			} else {
				seq, o = db.jr.seal()
				own = seq != before
			}
		}()
		ferr = fn(btx)
		returned = true
		return ferr
	})
	db.recountItemsIf(err)
	failed = false
	return seq, o, own, err
}

// View runs fn in a read-only transaction. It returns once what fn could
// read is in the data file (with appendfsync always, synced), so no reply
// shows a change a crash could undo. When a write fails meanwhile and
// takes back what fn read, fn runs again: it must start its result afresh
// each time.
func (db *DB) View(fn func(tx *Tx) error) error {
	return db.view(nil, fn)
}

// view is View, with writes stopped by refusal when it is set
// (ViewRefusingWrites).
func (db *DB) view(refuse error, fn func(tx *Tx) error) error {
	for {
		c, fnErr, err := db.viewOnce(refuse, fn)
		if err != nil {
			return err
		}
		if c.o == nil {
			return fnErr
		}
		// What it read waits as a write's reply would: in the file, and
		// with appendfsync always synced, as Redis answers a read after
		// the fsync of the writes before it.
		if werr := c.Wait(); !isTakenBack(werr) {
			return fnErr
		}
	}
}

// viewOnce runs fn once and returns what it must wait for, fn's error and
// the transaction's (a RefusedError when fn tried to write).
func (db *DB) viewOnce(refuse error, fn func(tx *Tx) error) (c Committed, fnErr, err error) {
	db.txMu.RLock()
	defer db.txMu.RUnlock()
	if db.jr != nil {
		c = Committed{db, db.jr.seq.Load(), db.jr.newest.Load(), false}
	}
	err = db.bdb.View(func(btx *buntdb.Tx) error {
		tx := newTx(db, btx, false)
		tx.refuse = refuse
		fnErr = callRefusing(tx, fn)
		tx.release()
		return nil
	})
	if _, ok := fnErr.(*RefusedError); ok {
		return Committed{}, nil, fnErr
	}
	return c, fnErr, err
}

// Save compacts the data file (SAVE/BGSAVE): it is rewritten holding only
// the live items (journal_rewrite.go).
func (db *DB) Save() error {
	if db.jr == nil {
		db.markSaved()
		return nil
	}
	db.rw.running.Add(1)
	err := db.rewriteJournal()
	db.rw.running.Add(-1)
	if err == nil {
		db.rewrote()
		if db.syncer != nil {
			db.syncer.dropReplaced()
		}
	}
	if err == nil || errors.Is(err, errRewriteRunning) {
		db.markSaved()
		return nil
	}
	return err
}

func (db *DB) markSaved() {
	db.mu.Lock()
	db.lastSave = time.Now()
	db.mu.Unlock()
	db.dirtyMu.Lock()
	db.dirty = 0
	db.dirtyMu.Unlock()
}

// LastSave returns when the data file was last compacted or opened.
func (db *DB) LastSave() time.Time {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.lastSave
}

// Dirty returns the number of key changes since the last save.
func (db *DB) Dirty() int64 {
	db.dirtyMu.Lock()
	defer db.dirtyMu.Unlock()
	return db.dirty
}

// Close stops background work, writes what is pending, syncs and closes
// the data file.
func (db *DB) Close() error {
	if !db.halt() {
		return nil
	}
	db.wg.Wait()
	return db.closeFiles()
}

// halt tells background work to stop; false when it was told already.
func (db *DB) halt() bool {
	select {
	case <-db.stop:
		return false
	default:
	}
	close(db.stop)
	return true
}

// Abandon ends the store while a transaction may hold it for good (a
// script that never ends, at SHUTDOWN NOSAVE): what was committed is
// written and synced; the open transaction is lost, as Redis loses the
// effects of a script it never finished. Background work is not waited
// for, and the process is to exit next.
func (db *DB) Abandon() error {
	if !db.halt() {
		return nil
	}
	return db.closeJournal()
}

func (db *DB) closeFiles() error {
	err := db.closeJournal()
	if berr := db.bdb.Close(); err == nil {
		err = berr
	}
	return err
}

// closeJournal writes what is pending, syncs and closes the data file.
func (db *DB) closeJournal() error {
	var err error
	if db.jr != nil {
		err = db.jr.close()
	}
	if db.syncer != nil {
		if serr := db.syncer.syncFile(0); err == nil {
			err = serr
		}
		db.syncer.release()
	}
	db.lock.release()
	return err
}
