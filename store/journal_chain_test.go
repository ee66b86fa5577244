package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// frameStarts returns the offset of each frame of a file of chained
// frames, and the file's length last.
func frameStarts(t *testing.T, data []byte) []int {
	t.Helper()
	var at []int
	for i := 0; i < len(data); {
		n, _, ok := parseFrameHeader((*[frameHeaderLen]byte)(data[i : i+frameHeaderLen]))
		if !ok {
			t.Fatalf("no chained frame at byte %d", i)
		}
		at = append(at, i)
		i += frameHeaderLen + int(n)
	}
	return append(at, len(data))
}

// Whole frames deleted, zeroed, swapped or repeated in the middle of the
// file pass their own checksums; the chain stops start-up at the first
// one out of place, check reports it there, and repair keeps the frames
// before it.
func TestFrameAlignedDamageIsCaught(t *testing.T) {
	data, states := writeSmallJournal(t)
	at := frameStarts(t, data)
	frames := len(at) - 1
	// The frames past the transactions are the layout marker's, first.
	before := frames - (len(states) - 1)
	if frames < 5 || before < 0 {
		t.Fatalf("%d frames for %d transactions", frames, len(states)-1)
	}
	frame := func(k int) []byte { return data[at[k]:at[k+1]] }
	for k := 1; k < frames-1; k++ {
		cases := map[string][]byte{
			"deleted":  slices.Concat(data[:at[k]], data[at[k+1]:]),
			"zeroed":   slices.Concat(data[:at[k]], make([]byte, len(frame(k))), data[at[k+1]:]),
			"swapped":  slices.Concat(data[:at[k]], frame(k+1), frame(k), data[at[k+2]:]),
			"repeated": slices.Concat(data[:at[k+1]], frame(k), data[at[k+1]:]),
			"moved":    slices.Concat(data[:at[k]], data[at[k+1]:at[frames]], frame(k)),
		}
		for name, bad := range cases {
			t.Run(fmt.Sprintf("frame %d of %d %s", k, frames, name), func(t *testing.T) {
				// Where the first frame out of place starts.
				want := at[k]
				if name == "repeated" {
					want = at[k+1]
				}
				dir := t.TempDir()
				_, err := loadBytes(t, dir, bad)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("damaged at byte %d:", want)) {
					t.Fatalf("start-up: %v; want damage at byte %d", err, want)
				}
				_, rep, err := CheckDataFile(dir)
				if err != nil || rep.Damage == nil || rep.Damage.At != int64(want) || rep.Good != int64(want) {
					t.Fatalf("check: %v, %+v %+v; want damage at %d", err, rep, rep.Damage, want)
				}
				if _, err := RepairDataFile(dir, rep); err != nil {
					t.Fatal(err)
				}
				db, err := Open(Options{Dir: dir, Sync: SyncNo, Logger: quietLogger()})
				if err != nil {
					t.Fatalf("start-up after repair: %v", err)
				}
				got := dumpDBs(db)
				db.Close()
				kept := slices.Index(at, want) - before
				if kept < 0 || got != states[kept] {
					t.Fatalf("after repair:\n%s\nwant the state after %d transactions:\n%s", got, kept, states[max(kept, 0)])
				}
			})
		}
	}
}

// The last frame zeroed or cut is a write a crash kept from the disk: it
// is dropped, as a torn write is, and the file cut before it.
func TestZeroedLastFrameIsDroppedAsTorn(t *testing.T) {
	data, states := writeSmallJournal(t)
	at := frameStarts(t, data)
	last := at[len(at)-2]
	for _, bad := range [][]byte{
		slices.Concat(data[:last], make([]byte, len(data)-last)),
		slices.Concat(data[:last], make([]byte, 3)),
		data[:last+frameHeaderLen+2],
	} {
		dir := t.TempDir()
		got, err := loadBytes(t, dir, bad)
		if err != nil || got != states[len(states)-2] {
			t.Fatalf("start-up: %v\n%s\nwant:\n%s", err, got, states[len(states)-2])
		}
		if fi, err := os.Stat(filepath.Join(dir, DataFile)); err != nil || fi.Size() != int64(last) {
			t.Fatalf("the file after start-up: %v, %v bytes; want %d", err, fi, last)
		}
	}
}

// oldFrames turns a file of chained frames into one as the version before
// links wrote it.
func oldFrames(t *testing.T, data []byte) []byte {
	t.Helper()
	var out []byte
	at := frameStarts(t, data)
	for k := range len(at) - 1 {
		f := data[at[k]:at[k+1]]
		h := append([]byte{oldFrameMark}, f[1:9]...)
		h = binary.LittleEndian.AppendUint32(h, crcOf(h))
		out = append(append(out, h...), f[frameHeaderLen:]...)
	}
	return out
}

// A file of frames without links loads as before, takes chained frames
// after them, and is rewritten into chained frames soon after start-up.
func TestFileOfUnlinkedFramesLoadsAndIsChained(t *testing.T) {
	data, states := writeSmallJournal(t)
	want := states[len(states)-1]
	dir := t.TempDir()
	old := oldFrames(t, data)
	// Frames without links are still checked: a swap among them is not
	// caught, but a changed byte is.
	if _, err := loadBytes(t, dir, slices.Concat(old[:20], []byte{old[20] ^ 1}, old[21:])); err == nil || !damagedAt.MatchString(err.Error()) {
		t.Fatalf("a changed byte in a frame without a link: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, DataFile), old, 0o644); err != nil {
		t.Fatal(err)
	}
	db := openSync(t, dir, SyncEverySec)
	if got := dumpDBs(db); got != want {
		t.Fatalf("loaded:\n%s\nwant:\n%s", got, want)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, DataFile))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := scanJournal(bytes.NewReader(b), int64(len(b)), func(record) error { return nil })
		if err != nil || rep.Damage != nil {
			t.Fatalf("the file while open: %v %+v", err, rep.Damage)
		}
		if rep.OldFrames == 0 && rep.Frames > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file was not rewritten with links: %+v", rep)
		}
		time.Sleep(10 * time.Millisecond)
	}
	db.Update(func(tx *Tx) error { tx.SetString("after", "1", 0, false); return nil })
	want = dumpDBs(db)
	db.Close()
	db = openSync(t, dir, SyncEverySec)
	defer db.Close()
	if got := dumpDBs(db); got != want {
		t.Fatalf("after the rewrite:\n%q\nwant:\n%q", got, want)
	}
}

// A follower appends the leader's frames after a history of its own, and
// a frame of an earlier version as a chained one: its file loads whole.
func TestFollowerChainsTheLeadersFrames(t *testing.T) {
	leader := openSync(t, t.TempDir(), SyncNo)
	defer leader.Close()
	fdir := t.TempDir()
	follower := openSync(t, fdir, SyncNo)
	follower.Update(func(tx *Tx) error { tx.SetString("own", "history", 0, false); return nil })
	follower.SetReplicator(nil)
	p := &pipeReplicator{leader: leader, followers: []*DB{follower}}
	leader.SetReplicator(p)
	for i := range 20 {
		if err := leader.Update(func(tx *Tx) error { tx.SetString(fmt.Sprint("k", i), "v", 0, false); return nil }); err != nil {
			t.Fatal(err)
		}
		if i == 10 {
			if err := leader.rewriteJournal(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A frame of an earlier version: another store's last, unlinked.
	odir := t.TempDir()
	other := openSync(t, odir, SyncNo)
	other.Update(func(tx *Tx) error { tx.SetString("old", "1", 0, false); return nil })
	other.Close()
	b, err := os.ReadFile(filepath.Join(odir, DataFile))
	if err != nil {
		t.Fatal(err)
	}
	at := frameStarts(t, b)
	old := oldFrames(t, b[at[len(at)-2]:])
	if err := follower.ApplyReplicated(old); err != nil {
		t.Fatal(err)
	}
	want := dump(t, follower)
	if err := follower.Close(); err != nil {
		t.Fatal(err)
	}
	_, rep, err := CheckDataFile(fdir)
	if err != nil || rep.Damage != nil || rep.Torn != 0 || rep.OldFrames != 0 {
		t.Fatalf("the follower's file: %v %+v %+v", err, rep, rep.Damage)
	}
	reopened := openSync(t, fdir, SyncNo)
	defer reopened.Close()
	if got := dump(t, reopened); got != want || !strings.Contains(got, "old") {
		t.Fatalf("the follower reopened:\n%s\nwant:\n%s", got, want)
	}
}

// A rewrite copies the frames written meanwhile after its own, relinked:
// copied as they are they would not link there.
func TestRelinkedFramesLoadAfterOthers(t *testing.T) {
	data, states := writeSmallJournal(t)
	at := frameStarts(t, data)
	_, last := frameLink(data[at[len(at)-2]:])
	var tail bytes.Buffer
	if _, err := relinkFrames(&tail, bytes.NewReader(data), int64(at[1]), int64(len(data)), last); err != nil {
		t.Fatal(err)
	}
	if got, err := loadBytes(t, t.TempDir(), slices.Concat(data, tail.Bytes())); err != nil || got != states[len(states)-1] {
		t.Fatalf("relinked: %v\n%s", err, got)
	}
	_, err := loadBytes(t, t.TempDir(), slices.Concat(data, data[at[1]:]))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("damaged at byte %d:", len(data))) {
		t.Fatalf("copied without relinking: %v", err)
	}
}

// Frames appended while a rewrite copies are relinked into the new file:
// it loads whole, with every write.
func TestRewriteRelinksTheTail(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncNo)
	for i := range 2000 {
		db.Update(func(tx *Tx) error {
			tx.SetString(fmt.Sprint("base", i), strings.Repeat("v", 200), 0, false)
			return nil
		})
	}
	for round := range 5 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 300 {
				db.Update(func(tx *Tx) error { tx.SetString(fmt.Sprint("r", round, "-", i), "x", 0, false); return nil })
			}
		}()
		if err := db.rewriteJournal(); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	want := dumpDBs(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, rep, err := CheckDataFile(dir)
	if err != nil || rep.Damage != nil || rep.Torn != 0 {
		t.Fatalf("after rewrites with writers: %v %+v %+v", err, rep, rep.Damage)
	}
	db = openSync(t, dir, SyncNo)
	defer db.Close()
	if got := dumpDBs(db); got != want {
		t.Fatal("the rewritten file loads another keyspace")
	}
}
