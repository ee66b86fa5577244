package store

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// stopSweeper stops the background expiry sweep, whose empty Updates would
// otherwise join sync rounds at unpredictable moments.
func stopSweeper(db *DB) {
	close(db.stop)
	db.wg.Wait()
	db.stop = make(chan struct{})
}

// setFsync replaces the syncer's fsync.
func setFsync(db *DB, fn func(*os.File) error) {
	db.syncer.fileMu.Lock()
	db.syncer.fsync = fn
	db.syncer.fileMu.Unlock()
}

func setKey(db *DB, key, val string) error {
	return db.Update(func(tx *Tx) error {
		tx.SetString(key, val, 0, false)
		return nil
	})
}

// setWithin runs setKey in the background and reports whether it returned
// within d, and its error if it did.
func setWithin(db *DB, key, val string, d time.Duration) (returned bool, err error) {
	done := make(chan error, 1)
	go func() { done <- setKey(db, key, val) }()
	select {
	case err := <-done:
		return true, err
	case <-time.After(d):
		return false, nil
	}
}

// Every Update returns only after an fsync that covers the bytes its commit
// wrote: the test records, independently of the syncer, how much of the file
// each completed fsync covered and checks each write lies inside.
func TestGroupCommitCoversEveryWrite(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	var mu sync.Mutex
	var durable int64 // file size when the last completed fsync started
	setFsync(db, func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		mu.Lock()
		durable = max(durable, st.Size())
		mu.Unlock()
		return nil
	})
	const writers, each = 50, 20
	syncsBefore, _ := db.syncer.syncStats()
	ackedAt := make([][]int64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := setKey(db, fmt.Sprintf("key-%d-%d", w, i), fmt.Sprintf("val<%d:%d>", w, i)); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ackedAt[w] = append(ackedAt[w], durable)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	syncs, _ := db.syncer.syncStats()
	syncs -= syncsBefore
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		for i, at := range ackedAt[w] {
			val := fmt.Sprintf("val<%d:%d>", w, i)
			end := bytes.Index(data, []byte(val)) + len(val)
			if end < len(val) {
				t.Fatalf("%s missing from the data file", val)
			}
			if int64(end) > at {
				t.Errorf("%s acknowledged when only %d bytes were synced; it ends at %d", val, at, end)
			}
		}
	}
	if syncs < 1 || syncs > writers*each {
		t.Errorf("%d fsyncs for %d writes", syncs, writers*each)
	}
	t.Logf("%d writes, %d fsyncs", writers*each, syncs)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// Writers that commit while an fsync is running share the next one, and that
// fsync covers every one of their commits.
func TestGroupCommitSharesOneFsync(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	stopSweeper(db)
	entered, release := make(chan struct{}), make(chan struct{})
	var calls int
	setFsync(db, func(f *os.File) error {
		calls++ // under fileMu
		if calls == 1 {
			close(entered)
			<-release
		}
		return f.Sync()
	})
	syncs0, covered0 := db.syncer.syncStats()
	db.syncer.mu.Lock()
	seq0 := db.syncer.seq
	db.syncer.mu.Unlock()

	const writers = 50
	errs := make(chan error, writers)
	go func() { errs <- setKey(db, "first", "1") }()
	<-entered
	for i := 1; i < writers; i++ {
		go func() { errs <- setKey(db, fmt.Sprint("k", i), "v") }()
	}
	// Wait until all of them committed and joined the next round.
	for {
		db.syncer.mu.Lock()
		joined := db.syncer.seq - seq0
		db.syncer.mu.Unlock()
		if joined == writers {
			break
		}
		runtime.Gosched()
	}
	close(release)
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	syncs, covered := db.syncer.syncStats()
	if syncs-syncs0 != 2 {
		t.Errorf("%d fsyncs for %d writers, want 2 (the first write's and one shared)", syncs-syncs0, writers)
	}
	if covered-covered0 != writers || covered != seq0+writers {
		t.Errorf("fsyncs covered commits up to %d, want %d", covered, seq0+writers)
	}
}

// A failed fsync is returned to every writer waiting on it and logged; the
// next round syncs again.
func TestGroupCommitFsyncError(t *testing.T) {
	var logs bytes.Buffer
	db, err := Open(Options{Dir: t.TempDir(), Sync: SyncAlways, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stopSweeper(db)
	boom := errors.New("injected EIO")
	fail := true
	setFsync(db, func(f *os.File) error {
		if fail {
			fail = false
			return boom
		}
		return f.Sync()
	})
	if err := setKey(db, "a", "1"); !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want the fsync error", err)
	}
	if !strings.Contains(logs.String(), "injected EIO") {
		t.Errorf("fsync error not logged: %q", logs.String())
	}
	syncs0, _ := db.syncer.syncStats()
	if err := setKey(db, "b", "2"); err != nil {
		t.Fatal(err)
	}
	if syncs, _ := db.syncer.syncStats(); syncs != syncs0+1 {
		t.Errorf("no fsync after the failed one")
	}
}

// After SAVE replaces the data file, the syncer syncs the new file, and
// writes made during and after the shrink survive a reopen.
func TestGroupCommitAcrossShrink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DataFile)
	db := openTemp(t, dir)
	for i := range 100 {
		if err := setKey(db, fmt.Sprint("k", i), "old"); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := setKey(db, fmt.Sprintf("w%d-%d", w, i), "during"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	if err := db.Save(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	now, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, now) {
		t.Fatal("SAVE did not replace the data file")
	}
	// The writers may all have finished before SAVE renamed the new file
	// in, so the first write sure to sync after the rename is this one.
	if err := setKey(db, "after", "1"); err != nil {
		t.Fatal(err)
	}
	db.syncer.fileMu.Lock()
	synced := db.syncer.fi
	db.syncer.fileMu.Unlock()
	if !os.SameFile(synced, now) {
		t.Error("the syncer still holds the replaced file")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if n := tx.DBSize(); n != 100+8*50+1 {
			t.Errorf("%d keys after reopen, want %d", n, 100+8*50+1)
		}
		return nil
	})
}

// Close syncs the data file through our descriptor in every mode.
func TestCloseSyncs(t *testing.T) {
	for _, mode := range []Sync{SyncEverySec, SyncNo, SyncAlways} {
		db, err := Open(Options{Dir: t.TempDir(), Sync: mode})
		if err != nil {
			t.Fatal(err)
		}
		stopSweeper(db)
		if err := setKey(db, "k", "v"); err != nil {
			t.Fatal(err)
		}
		synced := 0
		setFsync(db, func(f *os.File) error { synced++; return f.Sync() })
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		// With always the write was synced already; Close finds nothing new.
		want := 1
		if mode == SyncAlways {
			want = 0
		}
		if synced != want {
			t.Errorf("%s: %d fsyncs on Close", mode, synced)
		}
	}
}

// A file renamed over the data file while a round's fsync runs (as a shrink
// does) is synced by the same round before its writers return.
func TestGroupCommitRenameDuringFsync(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DataFile)
	db := openTemp(t, dir)
	defer db.Close()
	stopSweeper(db)
	var synced []os.FileInfo
	setFsync(db, func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		synced = append(synced, st)
		if len(synced) == 1 {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
				return err
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				return err
			}
		}
		return f.Sync()
	})
	if err := setKey(db, "k", "v"); err != nil {
		t.Fatal(err)
	}
	now, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 || os.SameFile(synced[0], now) || !os.SameFile(synced[1], now) {
		t.Fatalf("%d fsyncs; the renamed-in file was not synced by the round", len(synced))
	}
}
