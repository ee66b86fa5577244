package store

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// maybeRewrite is one check of the rewrite loop, run in the caller.
func (db *DB) maybeRewrite(busy bool) bool { return db.rewriteWanted(busy) && db.rewrite() }

func TestRewriteNeeded(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		size, base, pct, min int64
		want                 rewriteNeed
	}{
		{63 * mb, 0, 100, 64 * mb, rewriteNotDue},  // below min-size
		{64 * mb, 0, 100, 64 * mb, rewriteDue},     // fresh file at min-size
		{128 * mb, 0, 100, 64 * mb, rewriteUrgent}, // twice min-size
		{100 * mb, 60 * mb, 100, 64 * mb, rewriteNotDue},
		{120 * mb, 60 * mb, 100, 64 * mb, rewriteDue},    // grown 100%
		{179 * mb, 60 * mb, 100, 64 * mb, rewriteDue},    // not yet 200%
		{180 * mb, 60 * mb, 100, 64 * mb, rewriteUrgent}, // grown 200%
		{500 * mb, 60 * mb, 0, 64 * mb, rewriteNotDue},   // percentage 0: off
		{150 * mb, 100 * mb, 50, 64 * mb, rewriteDue},
		{200 * mb, 100 * mb, 50, 64 * mb, rewriteUrgent},
		{255 * mb, 0, 100, 64 * mb, rewriteUrgent},       // not yet four times min-size
		{256 * mb, 0, 100, 64 * mb, rewriteForced},       // four times min-size
		{299 * mb, 60 * mb, 100, 64 * mb, rewriteUrgent}, // not yet 400%
		{300 * mb, 60 * mb, 100, 64 * mb, rewriteForced}, // grown 400%
		{1 << 40, 1 << 30, 1<<31 - 1, 0, rewriteNotDue},  // no overflow
	} {
		if got := rewriteNeeded(c.size, c.base, c.pct, c.min); got != c.want {
			t.Errorf("size %d base %d pct %d min %d: %v, want %v", c.size, c.base, c.pct, c.min, got, c.want)
		}
	}
}

// A due rewrite waits while the store is busy and runs once it is quiet.
// Once the file has grown twice as far it runs anyway after rewriteGrace,
// and at four times as far at once; the data survives.
func TestRewriteWaitsForQuiet(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	defer func() { db.Close() }()
	db.SetRewritePolicy(0, 0) // the background loop stays out of the way
	val := strings.Repeat("v", 200)
	grow := func(to int64) {
		for i := 0; ; i++ {
			db.Update(func(tx *Tx) error {
				for j := 0; j < 50; j++ {
					tx.SetString("k"+strconv.Itoa(j), val+strconv.Itoa(i), 0, false)
				}
				return nil
			})
			if size, _ := db.fileSize(); size >= to {
				return
			}
		}
	}
	const min = 64 << 10
	grow(min)
	db.SetRewritePolicy(100, min)
	if db.maybeRewrite(true) {
		t.Fatal("rewrote a busy store before the file grew twice as far")
	}
	if st := db.RewriteStatus(); !st.Scheduled || st.InProgress {
		t.Fatalf("status %+v, want scheduled", st)
	}
	if !db.maybeRewrite(false) {
		t.Fatal("a quiet store did not rewrite a due file")
	}
	st := db.RewriteStatus()
	if st.Scheduled || st.BaseSize != st.CurrentSize || st.CurrentSize >= min {
		t.Fatalf("after the rewrite: %+v", st)
	}
	base := st.BaseSize
	grow(2 * base) // grown 100%: due, but busy
	if size, _ := db.fileSize(); size < min {
		grow(min)
	}
	if db.maybeRewrite(true) {
		t.Fatal("rewrote a busy store at 100% growth")
	}
	grow(2 * min) // twice min-size, and far past 200% growth
	if db.maybeRewrite(true) {
		t.Fatal("rewrote a busy store as soon as the file had grown twice as far")
	}
	db.rw.urgentSince.Add(-int64(rewriteGrace)) // the grace has run out
	if !db.maybeRewrite(true) {
		t.Fatal("a busy store did not rewrite a file grown twice as far once the grace ran out")
	}
	grow(4 * min) // four times min-size, and far past 400% growth
	if !db.maybeRewrite(true) {
		t.Fatal("a busy store did not rewrite at once a file grown four times as far")
	}
	db.Close()
	db = openTemp(t, dir)
	db.View(func(tx *Tx) error {
		for j := 0; j < 50; j++ {
			v, ok, _ := tx.GetString("k" + strconv.Itoa(j))
			if !ok || !strings.HasPrefix(v, val) {
				t.Fatalf("k%d after rewrites and reopen: %q %v", j, v, ok)
			}
		}
		return nil
	})
}

// The background check rewrites a due file of a quiet store by itself.
func TestRewriteRunsInBackground(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	defer db.Close()
	db.SetRewritePolicy(0, 0)
	for i := 0; i < 400; i++ {
		db.Update(func(tx *Tx) error {
			tx.SetString("k", strings.Repeat("x", 500)+strconv.Itoa(i), 0, false)
			return nil
		})
	}
	before, _ := db.fileSize()
	db.SetRewritePolicy(100, 64<<10)
	for deadline := time.Now().Add(time.Minute); db.RewriteStatus().CurrentSize >= before && time.Now().Before(deadline); {
		sleepBriefly()
	}
	if st := db.RewriteStatus(); st.CurrentSize >= before || st.BaseSize != st.CurrentSize {
		t.Fatalf("file not rewritten in the background: was %d, now %+v", before, st)
	}
}

func sleepBriefly() { time.Sleep(100 * time.Millisecond) }

// Closing the store while a rewrite runs abandons the rewrite (buntdb
// stops at its next chunk) and loses nothing.
func TestCloseDuringRewrite(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.SetRewritePolicy(0, 0)
	val := strings.Repeat("x", 1000)
	const keys = 20000
	for i := 0; i < keys; i += 500 {
		db.Update(func(tx *Tx) error {
			for j := i; j < i+500; j++ {
				tx.SetString("k"+strconv.Itoa(j), val, 0, false)
			}
			return nil
		})
	}
	db.SetRewritePolicy(100, 1)
	db.rw.base.Store(0)
	done := make(chan bool)
	go func() { done <- db.maybeRewrite(false) }()
	for !db.RewriteStatus().InProgress {
		select {
		case rewrote := <-done:
			t.Logf("the rewrite ended (%v) before Close could interrupt it", rewrote)
			done = nil
		default:
		}
		if done == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	if done != nil {
		<-done
	}
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		for j := 0; j < keys; j++ {
			if v, ok, _ := tx.GetString("k" + strconv.Itoa(j)); !ok || v != val {
				t.Fatalf("k%d after Close during a rewrite: %d bytes, %v", j, len(v), ok)
			}
		}
		return nil
	})
}
