package store

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit for appendfsync always.
//
// Once a writer's records are in the data file (journal.flush, outside the
// store lock), it joins the next sync round and waits for it. A round is
// only synced after its members joined, so its fsync starts after all of
// their records were written and covers them all: one fsync per round,
// however many writers joined it, as redis-server fsyncs once per
// event-loop pass.
//
// The fsync goes through our own descriptor on the data file: on Linux fsync
// on any descriptor of a file flushes all of its dirty pages.
//
// Rewrites (SAVE, BGSAVE, automatic ones: journal_rewrite.go) write a new
// file, copy into it what was appended to the old one meanwhile, sync it,
// rename it over the data file and sync the directory, with writers of the
// file held for the last part; records go to the new file from then on. A
// round, after its fsync, stats the path: if the inode is no longer our
// descriptor's, it reopens and syncs the new file too, so a round that
// straddles a rename covers the records written to either file.

// syncRound is one fsync shared by every writer that joined it.
type syncRound struct {
	lastSeq  uint64 // highest commit sequence in the round
	finished bool
	err      error
}

// syncer runs the rounds. There is no syncer goroutine: the first writer of
// a round that finds no fsync running leads it, syncing in its own goroutine
// (a lone writer pays no hand-off), and the writers that join meanwhile form
// the next round, which one of them leads once the running fsync completes.
type syncer struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	changed *sync.Cond // a round finished
	seq     uint64     // commits that have joined a round so far
	next    *syncRound // round being filled, nil if none
	syncing bool       // a leader is running a round

	fileMu     sync.Mutex // guards the fields below and serialises syncs
	f          *os.File
	fi         os.FileInfo
	syncedSize int64 // size of f when its last fsync started; -1 if none
	syncs      int64 // fsyncs of the data file, for tests and benchmarks
	covered    uint64
	released   bool                 // the store is closed: close f after each sync
	fsync      func(*os.File) error // (*os.File).Sync, replaced by tests
	latency    *latencyHook

	// written reports the journal sequence whose records are in the file;
	// synced is the highest one a completed fsync covered, so a read
	// knows whether what it saw is on disk yet.
	written func() uint64
	synced  atomic.Uint64
}

func newSyncer(path string, log *slog.Logger) *syncer {
	s := &syncer{path: path, log: log, syncedSize: -1, fsync: (*os.File).Sync}
	s.changed = sync.NewCond(&s.mu)
	return s
}

// wait returns once an fsync that started after the caller's commit has
// completed, with that fsync's error.
func (s *syncer) wait() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	r := s.next
	if r == nil {
		r = &syncRound{}
		s.next = r
	}
	r.lastSeq = s.seq
	for !r.finished {
		if s.syncing || s.next != r {
			s.changed.Wait()
			continue
		}
		// Lead: close the round to newcomers and sync it.
		s.syncing, s.next = true, nil
		s.mu.Unlock()
		err := s.syncFile(r.lastSeq)
		s.mu.Lock()
		r.err, r.finished, s.syncing = err, true, false
		s.changed.Broadcast()
	}
	return r.err
}

// syncFile makes everything written to the data file so far durable. lastSeq
// is the highest commit sequence this covers, recorded for tests.
func (s *syncer) syncFile(lastSeq uint64) error {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	var written uint64
	if s.written != nil {
		written = s.written()
	}
	err := s.syncLocked()
	if s.released && s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if err != nil {
		s.log.Error("fsync of the data file failed", "path", s.path, "err", err)
		return err
	}
	if lastSeq > s.covered {
		s.covered = lastSeq
	}
	if written > s.synced.Load() {
		s.synced.Store(written)
	}
	return nil
}

func (s *syncer) syncLocked() error {
	renamed := false
	if s.f == nil {
		if err := s.reopen(); err != nil {
			return err
		}
		renamed = true
	}
	for {
		st, err := s.f.Stat()
		if err != nil {
			return fmt.Errorf("stat data file: %w", err)
		}
		// The file only grows between shrinks, so the same file at the
		// size it had when its last fsync started holds nothing unsynced.
		if size := st.Size(); size != s.syncedSize {
			s.syncs++
			start := time.Now()
			err := s.fsync(s.f)
			s.latency.since("fsync", start)
			if err != nil {
				return fmt.Errorf("fsync data file: %w", err)
			}
			s.syncedSize = size
		}
		if renamed {
			if err := syncDir(filepath.Dir(s.path)); err != nil {
				return err
			}
		}
		// Done if the file we synced is still the data file. If a shrink
		// renamed a new one over it, before this round or during the
		// fsync, sync the new one (and the rename) too.
		now, err := os.Stat(s.path)
		if err != nil {
			return fmt.Errorf("stat data file: %w", err)
		}
		if os.SameFile(now, s.fi) {
			return nil
		}
		if err := s.reopen(); err != nil {
			return err
		}
		renamed = true
	}
}

// reopen makes s.f the file now at s.path.
func (s *syncer) reopen() error {
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("open data file for fsync: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat data file: %w", err)
	}
	if s.f != nil {
		s.f.Close()
	}
	s.f, s.fi, s.syncedSize = f, fi, -1
	return nil
}

// dropReplaced closes the descriptor when a rewrite or a snapshot has
// renamed another file over the one it is on; the next round reopens the
// path. The new file was synced before the rename and holds every record
// of the old one, so no round needs the old descriptor; kept, it holds the
// replaced file's blocks on disk, and on a full disk, where writes are
// refused and no round runs, it would hold them until a restart.
func (s *syncer) dropReplaced() {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if s.f == nil {
		return
	}
	if now, err := os.Stat(s.path); err == nil && os.SameFile(now, s.fi) {
		return
	}
	s.f.Close()
	s.f = nil
}

// release closes the descriptor.
func (s *syncer) release() {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	s.released = true
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open data directory for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync data directory: %w", err)
	}
	return nil
}

// syncStats returns how many fsyncs ran and the highest commit sequence a
// completed fsync covered.
func (s *syncer) syncStats() (syncs int64, covered uint64) {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	return s.syncs, s.covered
}
