package store

import (
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Automatic rewrites of the data file, as redis-server's
// auto-aof-rewrite-percentage and auto-aof-rewrite-min-size ask: once the
// file is at least min-size and has grown by percentage since the last
// rewrite (or since it was opened), it is rewritten holding only the live
// items (Save).
//
// Redis rewrites in a forked child, on a core of its own, and its clients
// barely notice. Our rewrite runs in this process, beside the commands: it
// serialises every item on the cores that serve clients, and cost a burst
// of pops at 50 clients 5-10% of its throughput. Hence a due rewrite waits
// while the store is busy (writers held its lock for more than busyShare of
// the last check interval) and runs at the first quiet interval. Once the
// file has grown twice as far as the settings ask it waits at most
// rewriteGrace more, and at four times as far not at all. A burst of up to
// a few seconds is thus not slowed by a rewrite (after a FLUSHALL the base
// is near zero, so twice min-size came within three seconds of pops), and
// under sustained load rewrites come half as often, the file then staying
// within about three times its live size instead of twice.
const (
	rewriteCheck = time.Second
	busyShare    = 0.25
	rewriteGrace = 5 * time.Second
)

// Defaults of redis-server 7.0.
const (
	defaultRewritePercentage = 100
	defaultRewriteMinSize    = 64 << 20
)

// RewriteSettings are auto-aof-rewrite-percentage (0: no automatic
// rewrites) and auto-aof-rewrite-min-size in bytes.
type RewriteSettings struct{ Percentage, MinSize int64 }

type rewriter struct {
	pct      atomic.Int64
	minSize  atomic.Int64
	base     atomic.Int64 // file size after the last rewrite, or at open
	busyNs   atomic.Int64 // time writers held the lock since the last check
	running  atomic.Int32 // rewrites in progress
	deferred atomic.Bool  // a rewrite is due but waits for a quiet interval

	urgentSince atomic.Int64 // unix ns when the file had grown twice as far; 0 if not
}

// SetRewritePolicy sets auto-aof-rewrite-percentage (0 turns automatic
// rewrites off) and auto-aof-rewrite-min-size in bytes.
func (db *DB) SetRewritePolicy(percentage, minSize int64) {
	db.SetRewritePercentage(percentage)
	db.SetRewriteMinSize(minSize)
}

// SetRewritePercentage sets auto-aof-rewrite-percentage alone (CONFIG SET).
func (db *DB) SetRewritePercentage(percentage int64) { db.rw.pct.Store(percentage) }

// SetRewriteMinSize sets auto-aof-rewrite-min-size alone (CONFIG SET).
func (db *DB) SetRewriteMinSize(minSize int64) { db.rw.minSize.Store(minSize) }

// RewritePolicy returns auto-aof-rewrite-percentage and -min-size.
func (db *DB) RewritePolicy() (percentage, minSize int64) {
	return db.rw.pct.Load(), db.rw.minSize.Load()
}

// RewriteStatus is what INFO persistence reports of the data file.
type RewriteStatus struct {
	CurrentSize, BaseSize int64
	InProgress, Scheduled bool
	WriteFailed           bool // the last write to the data file failed
}

// RewriteStatus returns the data file's size and rewrite state.
func (db *DB) RewriteStatus() RewriteStatus {
	size, _ := db.fileSize()
	return RewriteStatus{CurrentSize: size, BaseSize: db.rw.base.Load(),
		InProgress: db.rw.running.Load() > 0, Scheduled: db.rw.deferred.Load(),
		WriteFailed: db.jr != nil && db.jr.failed.Load()}
}

func (db *DB) fileSize() (int64, error) {
	if db.path == ":memory:" {
		return 0, errors.New("no data file")
	}
	st, err := os.Stat(db.path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

type rewriteNeed int

const (
	rewriteNotDue rewriteNeed = iota
	rewriteDue                // due: runs when the store is quiet
	rewriteUrgent             // grown twice as far: waits at most rewriteGrace
	rewriteForced             // grown four times as far: runs now
)

// rewriteNeeded applies the settings to a file of size bytes that had base
// bytes after its last rewrite.
func rewriteNeeded(size, base, pct, minSize int64) rewriteNeed {
	if pct <= 0 || size < minSize {
		return rewriteNotDue
	}
	growth := float64(size-base) * 100
	if growth < float64(base)*float64(pct) {
		return rewriteNotDue
	}
	switch {
	case size >= 4*minSize && growth >= 4*float64(base)*float64(pct):
		return rewriteForced
	case size >= 2*minSize && growth >= 2*float64(base)*float64(pct):
		return rewriteUrgent
	}
	return rewriteDue
}

func (db *DB) rewriteLoop() {
	defer db.wg.Done()
	t := time.NewTicker(rewriteCheck)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-db.stop:
			return
		case now := <-t.C:
			busy := float64(db.rw.busyNs.Swap(0)) > busyShare*float64(now.Sub(last))
			last = now
			if db.rw.running.Load() == 0 && db.rewriteWanted(busy) {
				// Off the loop, as BGSAVE's: Close does not wait for
				// a rewrite, buntdb abandons it when the store closes.
				go db.rewrite()
			}
		}
	}
}

// rewriteWanted reports whether the settings ask for a rewrite now,
// noting a due one that waits for a quiet interval.
func (db *DB) rewriteWanted(busy bool) bool {
	size, err := db.fileSize()
	if err != nil {
		return false
	}
	need := rewriteNeeded(size, db.rw.base.Load(), db.rw.pct.Load(), db.rw.minSize.Load())
	now := time.Now().UnixNano()
	if need < rewriteUrgent {
		db.rw.urgentSince.Store(0)
	} else {
		db.rw.urgentSince.CompareAndSwap(0, now)
	}
	wait := busy && (need == rewriteDue ||
		need == rewriteUrgent && now-db.rw.urgentSince.Load() < int64(rewriteGrace))
	db.rw.deferred.Store(wait)
	return need != rewriteNotDue && !wait
}

// rewrite rewrites the data file and reports whether it did.
func (db *DB) rewrite() bool {
	start := time.Now()
	err := db.Save()
	db.latency.since("aof-rewrite", start)
	if err != nil {
		if !errors.Is(err, buntdb.ErrDatabaseClosed) && !errors.Is(err, errJournalClosed) {
			db.log.Error("automatic rewrite of the data file failed", "path", db.path, "err", err)
		}
		return false
	}
	return true
}

// rewrote records the file's size after a rewrite as the base the next
// one is measured from.
func (db *DB) rewrote() {
	if size, err := db.fileSize(); err == nil {
		db.rw.base.Store(size)
	}
}
