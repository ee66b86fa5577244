package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

func entry(i uint64) *raft.Log {
	return &raft.Log{Index: i, Term: 1 + i/10, Type: raft.LogCommand, Data: []byte(fmt.Sprintf("entry %d", i))}
}

func storeRange(t *testing.T, ls *logStore, from, to uint64) {
	t.Helper()
	var logs []*raft.Log
	for i := from; i <= to; i++ {
		logs = append(logs, entry(i))
	}
	if err := ls.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
}

// checkLog wants exactly first..last held, each entry as written.
func checkLog(t *testing.T, ls *logStore, first, last uint64) {
	t.Helper()
	f, _ := ls.FirstIndex()
	l, _ := ls.LastIndex()
	if f != first || l != last {
		t.Fatalf("log holds %d-%d, want %d-%d", f, l, first, last)
	}
	for i := first; i <= last && last > 0; i++ {
		var got raft.Log
		if err := ls.GetLog(i, &got); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		want := entry(i)
		if got.Index != i || got.Term != want.Term || got.Type != want.Type || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("entry %d read back as %+v", i, got)
		}
	}
	var got raft.Log
	if err := ls.GetLog(last+1, &got); err != raft.ErrLogNotFound {
		t.Fatalf("entry past the last: %v", err)
	}
}

func reopen(t *testing.T, ls *logStore) *logStore {
	t.Helper()
	ls.Close()
	ls, err := openLogStore(ls.dir, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	return ls
}

func TestLogStoreAppendsTruncatesAndReopens(t *testing.T) {
	ls, err := openLogStore(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, ls, 0, 0)
	storeRange(t, ls, 1, 10)
	storeRange(t, ls, 11, 20)
	checkLog(t, ls, 1, 20)
	if err := ls.StoreLogs([]*raft.Log{entry(15)}); err == nil {
		t.Fatal("an append over held entries was taken")
	}
	// A conflicting tail goes, and is appended again.
	if err := ls.DeleteRange(16, 20); err != nil {
		t.Fatal(err)
	}
	checkLog(t, ls, 1, 15)
	storeRange(t, ls, 16, 25)
	ls = reopen(t, ls)
	checkLog(t, ls, 1, 25)
	// Compaction: the front goes.
	if err := ls.DeleteRange(1, 12); err != nil {
		t.Fatal(err)
	}
	checkLog(t, ls, 13, 25)
	// A follower that installed a snapshot appends past a gap.
	storeRange(t, ls, 40, 45)
	f, _ := ls.FirstIndex()
	l, _ := ls.LastIndex()
	var got raft.Log
	if f != 13 || l != 45 || ls.GetLog(30, &got) != raft.ErrLogNotFound || ls.GetLog(41, &got) != nil {
		t.Fatalf("after a gap: %d-%d", f, l)
	}
	if err := ls.DeleteRange(13, 30); err != nil {
		t.Fatal(err)
	}
	ls = reopen(t, ls)
	checkLog(t, ls, 40, 45)
	if err := ls.DeleteRange(40, 45); err != nil {
		t.Fatal(err)
	}
	checkLog(t, ls, 0, 0)
	storeRange(t, ls, 50, 52)
	ls = reopen(t, ls)
	checkLog(t, ls, 50, 52)
}

// TestLogStoreCutsATornAppend: an append cut short by a crash (never
// acknowledged) is cut off at the next start, and appends go on there.
func TestLogStoreCutsATornAppend(t *testing.T) {
	dir := t.TempDir()
	ls, err := openLogStore(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	storeRange(t, ls, 1, 5)
	ls.Close()
	name := filepath.Join(dir, segmentName(1))
	fi, _ := os.Stat(name)
	for _, cut := range []int64{1, 3, 9, 12} {
		if err := os.Truncate(name, fi.Size()-cut); err != nil {
			t.Fatal(err)
		}
		ls, err = openLogStore(dir, true)
		if err != nil {
			t.Fatalf("cut by %d: %v", cut, err)
		}
		checkLog(t, ls, 1, 4)
		storeRange(t, ls, 5, 5)
		ls.Close()
		fi, _ = os.Stat(name)
	}
	// A damaged byte in the middle of the last record: cut off too.
	b, _ := os.ReadFile(name)
	b[len(b)-2] ^= 0xff
	os.WriteFile(name, b, 0o644)
	if ls, err = openLogStore(dir, true); err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	checkLog(t, ls, 1, 4)
}

// TestLogStoreMovesBoltDBsEntries: a node of an earlier version keeps its
// entries, moved out of BoltDB once.
func TestLogStoreMovesBoltDBsEntries(t *testing.T) {
	dir := t.TempDir()
	bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"), BoltOptions: logStoreOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	for i := uint64(3); i <= 30; i++ {
		if err := bolt.StoreLog(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := moveLogs(bolt, filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	if last, _ := bolt.LastIndex(); last != 0 {
		t.Fatalf("BoltDB still holds entries up to %d", last)
	}
	// Moved once: a second start finds the log store.
	if err := moveLogs(bolt, filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	ls, err := openLogStore(filepath.Join(dir, "log"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	checkLog(t, ls, 3, 30)
}

// TestLogStoreSegments: appends move to a new file past the segment
// limit; compaction removes whole files and marks the rest.
func TestLogStoreSegments(t *testing.T) {
	defer func(l int64) { segmentLimit = l }(segmentLimit)
	segmentLimit = 100
	dir := t.TempDir()
	ls, err := openLogStore(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 30; i++ {
		storeRange(t, ls, i, i)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	if len(names) < 5 {
		t.Fatalf("%d segments for 30 entries past a 100-byte limit", len(names))
	}
	ls = reopen(t, ls)
	checkLog(t, ls, 1, 30)
	if err := ls.DeleteRange(1, 20); err != nil {
		t.Fatal(err)
	}
	checkLog(t, ls, 21, 30)
	if after, _ := filepath.Glob(filepath.Join(dir, "*.seg")); len(after) >= len(names) {
		t.Fatalf("compaction left %d of %d segments", len(after), len(names))
	}
	if err := ls.DeleteRange(25, 30); err != nil {
		t.Fatal(err)
	}
	storeRange(t, ls, 25, 26)
	ls = reopen(t, ls)
	first, _ := ls.FirstIndex()
	if first > 21 {
		t.Fatalf("first entry %d after a restart", first)
	}
	checkLog(t, ls, first, 26)
}
