package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/qlessd/qlessd/internal/memback"
	"github.com/tidwall/buntdb"
)

// rewriteChunk is how many items one read transaction of a rewrite
// collects: writers wait while it holds the read lock.
const rewriteChunk = 1024

var (
	errRewriteRunning   = errors.New("a rewrite of the data file is already running")
	errRewriteTakenBack = errors.New("a write to the data file failed during the rewrite")
)

// rewriteJournal replaces the data file with one holding a set record per
// live item. It runs beside the clients:
//
//  1. The file's size marks where the tail starts: whatever it does not
//     hold yet is written after that.
//  2. The items are copied, a chunk per read transaction, into a new file,
//     which is then synced. A chunk may already hold changes made after
//     step 1; they are in the tail too.
//  3. The tail, every record written to the old file since step 1, is
//     copied after them, the last part while writers of the file wait
//     (having written every transaction committed so far); the new file is
//     synced and renamed over the old one, the directory synced, and
//     writes go to the new file from then on. A write that failed since
//     step 1 took transactions back that the copy may hold: the rewrite is
//     given up.
//
// Replaying the new file gives the items as of the copy, then every change
// not yet in the file at step 1, in order: the store as it is. Set and
// delete records are idempotent, so a change both copied and in the tail
// is harmless.
func (db *DB) rewriteJournal() error {
	j := db.jr
	if !j.rewriting.CompareAndSwap(false, true) {
		return errRewriteRunning
	}
	defer j.rewriting.Store(false)
	j.wmu.Lock()
	start, takeBacks := j.size, j.takeBacks.Load()
	j.wmu.Unlock()

	tmp := rewriteTemp(db.path)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("create rewrite file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	size, link, err := db.copyItems(f)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync rewrite file: %w", err)
	}
	// Most of the tail while writers go on, the rest while they wait.
	j.wmu.Lock()
	end := j.size
	j.wmu.Unlock()
	if link, err = relinkTail(f, j.f, start, end, link); err != nil {
		return err
	}
	size += end - start
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if j.closed {
		return errJournalClosed
	}
	// The copy may hold transactions not written yet: they are written
	// now, and the copy is given up if any transaction it may hold was
	// taken back after a failed write.
	if err := j.writeLocked(true); err != nil {
		return err
	}
	if j.takeBacks.Load() != takeBacks {
		return errRewriteTakenBack
	}
	if link, err = relinkTail(f, j.f, end, j.size, link); err != nil {
		return err
	}
	size += j.size - end
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync rewrite file: %w", err)
	}
	if err := os.Rename(tmp, db.path); err != nil {
		return fmt.Errorf("rename rewrite file: %w", err)
	}
	done = true
	if err := syncDir(filepath.Dir(db.path)); err != nil {
		db.log.Error("fsync of the data directory after a rewrite failed", "err", err)
	}
	old := j.f
	j.f, j.size, j.link = f, size, link
	old.Close()
	return nil
}

// rewriteTemp is where a rewrite writes the new file; a crash may leave
// it behind, and opening removes it.
func rewriteTemp(path string) string {
	return filepath.Join(filepath.Dir(path), "temp-rewrite-"+filepath.Base(path))
}

// copyItems writes a set record for every item to out, in frames chained
// from the start of a file, and returns the bytes written and the link of
// the frame after them. Each read transaction only collects a chunk of
// items (buntdb's strings are immutable, so nothing is copied); they are
// encoded and written after it lets go, so writers wait microseconds per
// chunk.
func (db *DB) copyItems(out io.Writer) (int64, uint32, error) {
	w := bufio.NewWriterSize(out, 1<<20)
	fw := newFrameWriter(w)
	// The long values the rewrite held (chunk) may be gone from the store
	// meanwhile: memory to give back now that it lets go of them.
	longest := 0
	defer func() { memback.Gone(longest) }()
	type item struct{ k, v string }
	chunk := make([]item, 0, rewriteChunk)
	after, first := "", true
	for {
		chunk = chunk[:0]
		db.txMu.RLock()
		err := db.bdb.View(func(btx *buntdb.Tx) error {
			return btx.AscendGreaterOrEqual("", after, func(k, v string) bool {
				if !first && k == after {
					return true
				}
				first = false
				chunk = append(chunk, item{k, v})
				return len(chunk) < rewriteChunk
			})
		})
		db.txMu.RUnlock()
		if err != nil {
			return 0, 0, err
		}
		for _, it := range chunk {
			longest = max(longest, len(it.v))
			if err := fw.set(it.k, it.v); err != nil {
				return 0, 0, fmt.Errorf("write rewrite file: %w", err)
			}
		}
		if len(chunk) < rewriteChunk {
			break
		}
		after = chunk[len(chunk)-1].k
		clear(chunk)
	}
	if err := db.copyMembers(fw); err != nil {
		return 0, 0, fmt.Errorf("write rewrite file: %w", err)
	}
	if err := fw.flush(); err != nil {
		return 0, 0, fmt.Errorf("write rewrite file: %w", err)
	}
	if err := w.Flush(); err != nil {
		return 0, 0, fmt.Errorf("write rewrite file: %w", err)
	}
	return fw.size, fw.link, nil
}

// copyMembers writes a set record for every member of the sorted sets
// kept in indexes (zset_index.go), a chunk per read lock as copyItems
// does. A set's chunks resume after the last entry written, in (score,
// member) order: an entry that moved or came meanwhile is in the tail, and
// one that did not is seen once. So is a set that came or went, or changed
// hands, since the rewrite began.
func (db *DB) copyMembers(fw *frameWriter) error {
	chunk := make([]Entry, 0, rewriteChunk)
	for _, k := range db.zindexKeys(func(dbKey) bool { return true }) {
		var after Entry
		for first := true; ; first = false {
			chunk = chunk[:0]
			collect := func(e Entry) bool {
				if !first && e == after {
					return true
				}
				chunk = append(chunk, e)
				return len(chunk) < rewriteChunk
			}
			db.txMu.RLock()
			if ix := db.zindexOf(k.db, k.key); ix != nil {
				if first {
					ix.order.Scan(collect)
				} else {
					ix.order.Ascend(after, collect)
				}
			}
			db.txMu.RUnlock()
			for _, e := range chunk {
				fw.buf = appendMemberRecord(fw.buf, k, e.Member, e.Score)
				if err := fw.full(); err != nil {
					return err
				}
			}
			if len(chunk) < rewriteChunk {
				break
			}
			after = chunk[len(chunk)-1]
		}
		clear(chunk)
	}
	return nil
}

// relinkTail appends the frames in bytes [from, to) of src to dst, the
// new file, relinked after the frames before them there (link); it returns
// the link of the frame after them.
func relinkTail(dst, src *os.File, from, to int64, link uint32) (uint32, error) {
	if to <= from {
		return link, nil
	}
	w := bufio.NewWriterSize(dst, 1<<20)
	link, err := relinkFrames(w, src, from, to, link)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return link, fmt.Errorf("copy the data file's tail: %w", err)
	}
	return link, nil
}
