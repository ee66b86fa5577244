package store

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// failWrites makes the data file's descriptor read-only, so every write to
// it fails (EBADF), and returns a function that gives the writable one back.
func failWrites(t *testing.T, db *DB) (restore func()) {
	t.Helper()
	ro, err := os.Open(db.path)
	if err != nil {
		t.Fatal(err)
	}
	db.jr.wmu.Lock()
	good := db.jr.f
	db.jr.f = ro
	db.jr.wmu.Unlock()
	return func() {
		db.jr.wmu.Lock()
		db.jr.f = good
		db.jr.wmu.Unlock()
		ro.Close()
	}
}

// dumpDBs is dumpAll of databases 0 and 1.
func dumpDBs(db *DB) string {
	var out string
	db.View(func(tx *Tx) error {
		for d := range 2 {
			tx.Select(d)
			out += dumpAll(tx) + "--\n"
		}
		return nil
	})
	return out
}

// A write whose records cannot be written is taken back out of memory,
// with every transaction that committed after it: none of them is seen by
// reads, kept in the file, or written later.
func TestFailedWriteIsTakenBack(t *testing.T) {
	for _, last := range []string{"writes", "delete", "flushdb", "flushall", "swapdb", "rename", "copy"} {
		t.Run(last, func(t *testing.T) {
			dir := t.TempDir()
			db := openSync(t, dir, SyncEverySec)
			defer func() { db.Close() }()
			r := rand.New(rand.NewPCG(7, 9))
			for step := range 200 {
				db.Update(func(tx *Tx) error {
					randomWrites(tx, r, randomKeys, step)
					if step%50 == 0 {
						tx.Select(1)
						randomWrites(tx, r, randomKeys, step)
						tx.Select(0)
					}
					return nil
				})
			}
			before := dumpDBs(db)
			restore := failWrites(t, db)

			// Two transactions commit before the first one's write: both
			// are taken back.
			c1, err := db.UpdateAsync(func(tx *Tx) error {
				randomWrites(tx, r, randomKeys, 1000)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			c2, err := db.UpdateAsync(func(tx *Tx) error {
				randomWrites(tx, r, randomKeys, 1001)
				lastWrite(tx, last)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := c2.Wait(); err == nil {
				t.Fatal("a write to a read-only descriptor succeeded")
			}
			if err := c1.Wait(); err == nil {
				t.Fatal("the earlier transaction of the failed write reports success")
			}
			if after := dumpDBs(db); after != before {
				t.Fatalf("the failed transactions stayed in memory:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			ran := false
			if err := db.Update(func(tx *Tx) error { ran = true; return nil }); err == nil || ran {
				t.Fatalf("a write ran while writes fail: err %v, ran %v", err, ran)
			}

			restore()
			db.jr.lastProbe.Store(0)
			if err := setKey(db, "after", "4"); err != nil {
				t.Fatalf("write once the file is writable again: %v", err)
			}
			if v, ok := getKey(t, db, "after"); !ok || v != "4" {
				t.Fatalf("the write after recovery reads %q %v", v, ok)
			}
			want := dumpDBs(db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openSync(t, dir, SyncEverySec)
			if got := dumpDBs(db); got != want {
				t.Fatalf("reopened store differs:\nwant:\n%s\ngot:\n%s", want, got)
			}
		})
	}
}

// lastWrite ends a failing transaction with a write that changes much at
// once, whose taking back restores whole sorted-set indexes.
func lastWrite(tx *Tx, what string) {
	switch what {
	case "delete":
		tx.Delete("zbig")
	case "flushdb":
		tx.FlushDB()
	case "flushall":
		tx.FlushAll()
	case "swapdb":
		tx.SwapDB(0, 1)
	case "rename":
		tx.Rename("zbig", "z-renamed")
	case "copy":
		tx.Copy("zbig", 0, "z-copied", true)
		tx.Copy("zbig", 1, "zbig", true)
	}
}

// A read that saw a transaction whose write then failed reads again: its
// result never shows a write that was taken back.
func TestReadOfFailedWriteReadsAgain(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncEverySec)
	defer db.Close()
	if err := setKey(db, "k", "old"); err != nil {
		t.Fatal(err)
	}
	restore := failWrites(t, db)
	defer restore()
	c, err := db.UpdateAsync(func(tx *Tx) error {
		tx.SetString("k", "new", 0, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	var seen string
	db.View(func(tx *Tx) error {
		runs++
		seen, _, _ = tx.GetString("k")
		return nil
	})
	if seen != "old" {
		t.Errorf("the read returned %q (after %d runs), a value whose write failed", seen, runs)
	}
	if err := c.Wait(); err == nil {
		t.Error("the failed transaction reports success")
	}
	var we *WriteError
	if err := c.Wait(); !errors.As(err, &we) {
		t.Errorf("error %v is not a WriteError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DataFile)); err != nil {
		t.Fatal(err)
	}
}

// A rewrite copies what is in memory, which may hold a transaction whose
// write then fails: the new file must not keep that transaction.
func TestRewriteKeepsNothingTakenBack(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncEverySec)
	if err := setKey(db, "k", "old"); err != nil {
		t.Fatal(err)
	}
	failWrites(t, db)
	c, err := db.UpdateAsync(func(tx *Tx) error {
		tx.SetString("k", "new", 0, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Save()
	failWrites(t, db) // the file the rewrite left, whichever it is
	werr := c.Wait()
	if werr == nil {
		t.Fatal("a write to a read-only descriptor succeeded")
	}
	if v, _ := getKey(t, db, "k"); v != "old" {
		t.Errorf("k = %q in memory after its write failed", v)
	}
	db.Close()
	db = openSync(t, dir, SyncEverySec)
	defer db.Close()
	if v, _ := getKey(t, db, "k"); v != "old" {
		t.Errorf("k = %q after reopening: the rewrite kept a write that failed", v)
	}
}

// Writers count up their own counters while writes to the file fail now
// and then: every counter must equal the number of increments that
// succeeded, in memory and after reopening. An increment that failed and
// was still applied, or one lost though it succeeded, breaks the count.
func TestCountersMatchAcknowledgedIncrements(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncEverySec)
	const writers, rounds = 8, 6
	acked := make([]int, writers)
	var failed atomic.Int64
	for round := range rounds {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := "c" + strconv.Itoa(w)
				for {
					select {
					case <-stop:
						return
					default:
					}
					err := db.Update(func(tx *Tx) error {
						v, _, _ := tx.GetString(key)
						n, _ := strconv.Atoi(v)
						tx.SetString(key, strconv.Itoa(n+1), 0, false)
						return nil
					})
					if err == nil {
						acked[w]++
					} else {
						failed.Add(1)
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		restore := failWrites(t, db)
		// Writes fail for 20 ms, and on until one has failed: on a loaded
		// machine the writers may not run at all in 20 ms.
		time.Sleep(20 * time.Millisecond)
		for end := time.Now().Add(time.Minute); failed.Load() == 0 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		restore()
		db.jr.lastProbe.Store(0)
		time.Sleep(20 * time.Millisecond)
		close(stop)
		wg.Wait()
		check := func(when string) {
			for w := range writers {
				v, _ := getKey(t, db, "c"+strconv.Itoa(w))
				if n, _ := strconv.Atoi(v); n != acked[w] {
					t.Fatalf("round %d, %s: counter %d is %d, but %d increments succeeded", round, when, w, n, acked[w])
				}
			}
		}
		if failed.Swap(0) == 0 {
			t.Fatalf("round %d: no write failed", round)
		}
		check("in memory")
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = openSync(t, dir, SyncEverySec)
		check("after reopening")
	}
	db.Close()
}

// While writes are refused, a transaction that may write runs as a read:
// it reads, and its first change stops it before anything changed.
func TestViewRefusingWrites(t *testing.T) {
	db := openSync(t, t.TempDir(), SyncEverySec)
	defer db.Close()
	if err := setKey(db, "k", "v"); err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *Tx) error {
		z, _ := tx.OpenZSet("zbig")
		for i := range 200 {
			z.Put("m"+strconv.Itoa(i), float64(i))
		}
		z.Flush()
		z.Release()
		return nil
	})
	before := dumpDBs(db)
	why := errors.New("no space left on device")
	var read string
	err := db.ViewRefusingWrites(why, func(tx *Tx) error {
		read, _, _ = tx.GetString("k")
		return nil
	})
	if err != nil || read != "v" {
		t.Fatalf("a read refusing writes: %q, %v", read, err)
	}
	for name, write := range map[string]func(tx *Tx){
		"set":      func(tx *Tx) { tx.SetString("k", "changed", 0, false) },
		"delete":   func(tx *Tx) { tx.Delete("k") },
		"zadd":     func(tx *Tx) { z, _ := tx.OpenZSet("zbig"); z.Put("new", 1) },
		"zrem":     func(tx *Tx) { z, _ := tx.OpenZSet("zbig"); z.Remove("m1") },
		"rescore":  func(tx *Tx) { z, _ := tx.OpenZSet("zbig"); z.Put("m1", 7) },
		"flushall": func(tx *Tx) { tx.FlushAll() },
		"flushdb":  func(tx *Tx) { tx.FlushDB() },
		"swapdb":   func(tx *Tx) { tx.SwapDB(0, 1) },
	} {
		err := db.ViewRefusingWrites(why, func(tx *Tx) error {
			write(tx)
			return nil
		})
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, why) {
			t.Errorf("%s: error %v, want a RefusedError of %v", name, err, why)
		}
		if after := dumpDBs(db); after != before {
			t.Fatalf("%s changed the store:\n%s", name, after)
		}
	}
}

// View returns fn's error, with a data file and without.
func TestViewReturnsItsError(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		db := openSync(t, dir, SyncNo)
		want := errors.New("from fn")
		if err := db.View(func(tx *Tx) error { return want }); err != want {
			t.Errorf("dir %q: View returned %v", dir, err)
		}
		db.Close()
	}
}
