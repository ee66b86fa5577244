package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func getKey(t *testing.T, db *DB, k string) (string, bool) {
	t.Helper()
	var v string
	var ok bool
	db.View(func(tx *Tx) error {
		v, ok, _ = tx.GetString(k)
		return nil
	})
	return v, ok
}

// A failed write takes its transaction back and refuses later writes until
// a probe finds the file writable; the failed write is applied neither in
// memory nor later in the file.
func TestJournalWriteFailureRefusesThenRecovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DataFile)
	db := openSync(t, dir, SyncEverySec)
	if err := setKey(db, "before", "1"); err != nil {
		t.Fatal(err)
	}
	good := db.jr.f
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.jr.wmu.Lock()
	db.jr.f = ro
	db.jr.wmu.Unlock()

	if err := setKey(db, "during", "2"); err == nil {
		t.Fatal("a write to a read-only descriptor succeeded")
	}
	ran := false
	err = db.Update(func(tx *Tx) error {
		ran = true
		tx.SetString("refused", "3", 0, false)
		return nil
	})
	if err == nil || ran {
		t.Fatalf("write after a failed write: err %v, ran %v", err, ran)
	}
	if !db.RewriteStatus().WriteFailed {
		t.Error("INFO would report the last write as ok")
	}
	// Reads go on, and do not see the failed write.
	if v, ok := getKey(t, db, "during"); ok {
		t.Errorf("during = %q, a write that failed", v)
	}
	if v, ok := getKey(t, db, "before"); !ok || v != "1" {
		t.Errorf("before = %q %v", v, ok)
	}

	db.jr.wmu.Lock()
	db.jr.f = good
	db.jr.wmu.Unlock()
	ro.Close()
	db.jr.lastProbe.Store(0)
	if err := setKey(db, "after", "4"); err != nil {
		t.Fatalf("write once the file is writable again: %v", err)
	}
	if db.RewriteStatus().WriteFailed {
		t.Error("INFO would still report the last write as failed")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTemp(t, dir)
	defer db.Close()
	for k, want := range map[string]string{"before": "1", "after": "4"} {
		if v, ok := getKey(t, db, k); !ok || v != want {
			t.Errorf("%s after reopen = %q %v, want %q", k, v, ok, want)
		}
	}
	for _, k := range []string{"during", "refused"} {
		if _, ok := getKey(t, db, k); ok {
			t.Errorf("the failed write of %s was kept", k)
		}
	}
}

// A read returns only once what it saw is in the file.
func TestViewWaitsForTheFile(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncEverySec)
	defer db.Close()
	val := strings.Repeat("v", 40)
	c, err := db.UpdateAsync(func(tx *Tx) error {
		tx.SetString("k", val, 0, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := getKey(t, db, "k"); !ok || v != val {
		t.Fatalf("k = %q %v", v, ok)
	}
	b, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(val)) {
		t.Error("a read returned before the value it read was in the data file")
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestRecordReader(t *testing.T) {
	in := "*3\r\n$3\r\nset\r\n$1\r\na\r\n$2\r\nxy\r\n\x00\x00" +
		"*2\r\n$3\r\nDEL\r\n$1\r\na\r\n" +
		"*1\r\n$7\r\nflushdb\r\n" +
		"*3\r\n$3\r\nset\r\n$1\r\nb\r\n$0\r\n\r\n"
	rr := recordReader{r: bufio.NewReader(strings.NewReader(in))}
	var got []record
	for {
		r, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []record{{opSet, "a", "xy"}, {opDel, "a", ""}, {opFlush, "", ""}, {opSet, "b", ""}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %v, want %v", i, got[i], want[i])
		}
	}
	if rr.good != int64(len(in)) {
		t.Errorf("good = %d, want %d", rr.good, len(in))
	}

	for _, c := range []struct {
		in   string
		torn bool
	}{
		{"*3\r\n$3\r\nset\r\n$1\r\na\r\n$2\r\nx", true},
		{"*2\r\n$3\r\ndel\r\n", true},
		{"*2\r\n$3\r\nget\r\n$1\r\na\r\n", false},
		{"*3\r\n$3\r\nset\r\n$1\r\na\r\n$2\r\nxyz\r\n", false},
		{"+OK\r\n", false},
		{"*1\r\n$99999999999\r\n", false},
	} {
		rr := recordReader{r: bufio.NewReader(strings.NewReader(c.in))}
		_, err := rr.next()
		if torn := errors.Is(err, io.ErrUnexpectedEOF); err == nil || torn != c.torn {
			t.Errorf("%q: err %v, want torn %v", c.in, err, c.torn)
		}
		if rr.good != 0 {
			t.Errorf("%q: good %d", c.in, rr.good)
		}
	}
}

// A read that panics lets go of the store: writers after it proceed.
func TestViewPanicReleasesTheStore(t *testing.T) {
	db := openSync(t, t.TempDir(), SyncEverySec)
	defer db.Close()
	func() {
		defer func() { recover() }()
		db.View(func(tx *Tx) error { panic("boom") })
	}()
	returned, err := setWithin(db, "k", "v", time.Minute)
	if !returned {
		t.Fatal("a write waited on a read that panicked")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A transaction cut short by the end of the file, inside a record or
// between two, is dropped whole; the transactions before it stay.
func TestTornTransactionDropped(t *testing.T) {
	for _, cut := range []struct {
		name string
		back int // bytes cut from the end of the file
	}{
		{"inside exec", 3},
		{"before exec", len(recExec)},
		{"inside a record", len(recExec) + 5},
	} {
		t.Run(cut.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, DataFile)
			db := openSync(t, dir, SyncEverySec)
			if err := setKey(db, "first", "1"); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(path)
			db.Update(func(tx *Tx) error {
				for _, k := range []string{"a", "b", "c"} {
					tx.SetString(k, "v", 0, false)
				}
				return nil
			})
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tail := string(b[before.Size()+frameHeaderLen:])
			if !strings.HasPrefix(tail, recMulti) || !strings.HasSuffix(tail, recExec) {
				t.Fatalf("the three-key transaction is not framed: %q", tail)
			}
			if err := os.Truncate(path, int64(len(b)-cut.back)); err != nil {
				t.Fatal(err)
			}
			db = openTemp(t, dir)
			defer db.Close()
			if v, ok := getKey(t, db, "first"); !ok || v != "1" {
				t.Errorf("first = %q %v", v, ok)
			}
			for _, k := range []string{"a", "b", "c"} {
				if _, ok := getKey(t, db, k); ok {
					t.Errorf("%s of the torn transaction was kept", k)
				}
			}
			if st, _ := os.Stat(path); st.Size() < before.Size() || st.Size() > before.Size()+64 {
				t.Errorf("file is %d bytes after the cut, want the %d before the transaction (plus what opening wrote)", st.Size(), before.Size())
			}
		})
	}
}

// Transaction records out of place are damage, not a torn tail.
func TestTransactionFramingDamage(t *testing.T) {
	set := "*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"
	for name, c := range map[string]struct {
		body string
		keep int // bytes the error advises keeping
	}{
		"exec without multi": {set + recExec + set, len(set)},
		"multi inside multi": {set + recMulti + set + recMulti + recExec, len(set)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, DataFile), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := Open(Options{Dir: dir})
			if err == nil {
				db.Close()
				t.Fatal("opened a damaged file")
			}
			if want := fmt.Sprintf("damaged at byte %d", c.keep); name == "exec without multi" && !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want %q", err, want)
			}
			if want := fmt.Sprintf("keeps the %d bytes before the damage", c.keep); !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
}

// With appendfsync always, a read returns only once what it read is synced.
func TestViewWaitsForTheFsyncWithAlways(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	c, err := db.UpdateAsync(func(tx *Tx) error {
		tx.SetString("k", "v", 0, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if db.syncer.synced.Load() >= c.seq {
		t.Fatal("synced before anything waited")
	}
	if v, ok := getKey(t, db, "k"); !ok || v != "v" {
		t.Fatalf("k = %q %v", v, ok)
	}
	if got := db.syncer.synced.Load(); got < c.seq {
		t.Errorf("a read returned with its value unsynced (synced %d, its transaction %d)", got, c.seq)
	}
	syncs, _ := db.syncer.syncStats()
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if after, _ := db.syncer.syncStats(); after != syncs {
		t.Errorf("the writer synced again (%d fsyncs, then %d) though a read's fsync covered it", syncs, after)
	}
}

// A huge transaction's record buffers are not kept once it is written.
func TestJournalDropsHugeBuffers(t *testing.T) {
	db := openSync(t, t.TempDir(), SyncEverySec)
	defer db.Close()
	big := strings.Repeat("x", 3*maxKeptBuffer)
	db.Update(func(tx *Tx) error {
		tx.SetString("a", big, 0, false)
		tx.SetString("b", big, 0, false)
		return nil
	})
	db.Update(func(tx *Tx) error {
		tx.SetString("c", "small", 0, false)
		tx.SetString("d", "small", 0, false)
		return nil
	})
	db.jr.wmu.Lock()
	spare := cap(db.jr.spare)
	db.jr.wmu.Unlock()
	db.jr.mu.Lock()
	pending := cap(db.jr.pending)
	db.jr.mu.Unlock()
	if open := cap(db.jr.open); open > maxKeptBuffer || spare > maxKeptBuffer || pending > maxKeptBuffer {
		t.Errorf("buffers kept: open %d, pending %d, spare %d bytes", open, pending, spare)
	}
}

// A member's record must name the key its item had in buntdb, or loading
// the file puts the member nowhere; the key is built in place, so check it
// across the key lengths whose length prefix takes one byte and two.
func TestMemberRecordNamesItsItemKey(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300} {
		for _, d := range []int{0, 5, 255} {
			for _, member := range []string{"", "x", "\x00\xff m"} {
				k := dbKey{d, strings.Repeat("k", n)}
				item := memberPrefixOf(d, k.key) + member
				want := "*2\r\n$3\r\ndel\r\n$" + strconv.Itoa(len(item)) + "\r\n" + item + "\r\n"
				j := &journal{}
				j.addDelMember(k, member)
				if got := string(j.open); got != want {
					t.Fatalf("key of %d bytes, db %d, member %q: %q, want %q", n, d, member, got, want)
				}
				rec := appendMemberRecord(nil, k, member, 2.5)
				if !strings.HasPrefix(string(rec), "*3\r\n$3\r\nset\r\n$"+strconv.Itoa(len(item))+"\r\n"+item+"\r\n$8\r\n") {
					t.Fatalf("set record %q for item %q", rec, item)
				}
			}
		}
	}
}
