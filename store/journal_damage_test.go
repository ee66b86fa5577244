package store

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeSmallJournal writes a data file of a few kilobytes through the
// store: transactions of every kind of record (items, sorted-set members,
// deletions, multi-record transactions, FLUSHALL), and returns its bytes
// and the keyspace after each transaction (states[0] is the empty store).
func writeSmallJournal(t *testing.T) (data []byte, states []string) {
	t.Helper()
	dir := t.TempDir()
	db := openSync(t, dir, SyncNo)
	states = append(states, dumpDBs(db))
	steps := []func(tx *Tx){
		func(tx *Tx) { tx.SetString("a", "1", 0, false) },
		func(tx *Tx) { tx.HSet("h", "f1", "v1", "f2", "v2") },
		func(tx *Tx) {
			z, _ := tx.OpenZSet("z")
			for i := range 40 {
				z.Put("member-"+strconv.Itoa(i), float64(i))
			}
			z.Flush()
			z.Release()
		},
		func(tx *Tx) { tx.SetString("b", "2", 0, false); tx.Delete("a") },
		func(tx *Tx) { tx.FlushAll(); tx.SetString("c", "after flush", 0, false) },
		func(tx *Tx) { tx.ListPush("l", []string{"x", "y", "z"}, false, false) },
		func(tx *Tx) {
			z, _ := tx.OpenZSet("z2")
			for i := range 30 {
				z.Put("m"+strconv.Itoa(i), float64(i))
			}
			z.Flush()
			z.Release()
			z, _ = tx.OpenZSet("z2")
			z.Remove("m3")
			z.Flush()
			z.Release()
		},
		func(tx *Tx) { tx.SetString("c", "last", 0, false) },
	}
	for _, step := range steps {
		if err := db.Update(func(tx *Tx) error { step(tx); return nil }); err != nil {
			t.Fatal(err)
		}
		states = append(states, dumpDBs(db))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		t.Fatal(err)
	}
	return data, states
}

// loadBytes opens a store on a data file holding data and returns its
// keyspace, or the error Open gave.
func loadBytes(t *testing.T, dir string, data []byte) (string, error) {
	t.Helper()
	path := filepath.Join(dir, DataFile)
	os.Remove(path)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := Open(Options{Dir: dir, Sync: SyncNo, Logger: quietLogger()})
	if err != nil {
		return "", err
	}
	defer db.Close()
	return dumpDBs(db), nil
}

var damagedAt = regexp.MustCompile(`damaged at byte [0-9]+`)

// Every single-byte change anywhere in a data file either loads the data
// it held or stops the start with the offset of the damage: never changed
// data.
func TestEveryByteFlipIsCaughtOrHarmless(t *testing.T) {
	t.Parallel()
	data, states := writeSmallJournal(t)
	want := states[len(states)-1]
	dir := memDir(t)
	if got, err := loadBytes(t, dir, data); err != nil || got != want {
		t.Fatalf("the undamaged file loads %v:\n%s", err, got)
	}
	refused := 0
	for i := range data {
		changes := []byte{data[i] ^ 1<<(i%8), data[i] ^ 0xff, byte(i*7 + 3)}
		if testing.Short() {
			// make test changes every byte once, in each of the three ways
			// by turns; make soak all three ways.
			changes = changes[i%3 : i%3+1]
		}
		for _, b := range changes {
			if b == data[i] {
				continue
			}
			bad := append([]byte(nil), data...)
			bad[i] = b
			got, err := loadBytes(t, dir, bad)
			switch {
			case err != nil && !damagedAt.MatchString(err.Error()):
				t.Fatalf("byte %d set to %#x: error without the offset: %v", i, b, err)
			case err != nil:
				refused++
			case got != want:
				t.Fatalf("byte %d of %d set to %#x (was %#x) loaded changed data:\n%s\nwant:\n%s", i, len(data), b, data[i], got, want)
			}
		}
	}
	t.Logf("%d bytes, %d changes refused", len(data), refused)
}

// A data file cut at any byte loads the keyspace after some prefix of the
// transactions that wrote it, a longer cut never an earlier one.
func TestEveryTruncationLoadsAPrefix(t *testing.T) {
	t.Parallel()
	data, states := writeSmallJournal(t)
	dir := memDir(t)
	last := 0
	for cut := 0; cut <= len(data); cut++ {
		got, err := loadBytes(t, dir, data[:cut])
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, len(data), err)
		}
		k := last
		for k < len(states) && states[k] != got {
			k++
		}
		if k == len(states) {
			t.Fatalf("cut at %d of %d loads no prefix of the writes (or an earlier one than a shorter cut):\n%s", cut, len(data), got)
		}
		last = k
	}
	if last != len(states)-1 {
		t.Fatalf("the whole file loads state %d of %d", last, len(states)-1)
	}
}

// quietLogger drops what a test provokes on purpose (dropped tails).
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// memDir is a directory for a test that opens thousands of stores: on
// /dev/shm where there is one, as each Open and Close syncs the data file.
func memDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("/dev/shm", "qlessd-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// unframe turns a data file into one as versions before checksums wrote
// it: the records alone.
func unframe(t *testing.T, data []byte) []byte {
	t.Helper()
	var out []byte
	for len(data) > 0 {
		h := (*[frameHeaderLen]byte)(data[:frameHeaderLen])
		n, _, ok := parseFrameHeader(h)
		if !ok {
			t.Fatal("not a frame")
		}
		out = append(out, data[frameHeaderLen:frameHeaderLen+n]...)
		data = data[frameHeaderLen+n:]
	}
	return out
}

// A file written before checksums loads as before, and is rewritten with
// checksums soon after.
func TestFileWithoutChecksumsLoadsAndGetsThem(t *testing.T) {
	data, states := writeSmallJournal(t)
	want := states[len(states)-1]
	dir := t.TempDir()
	path := filepath.Join(dir, DataFile)
	if err := os.WriteFile(path, unframe(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openSync(t, dir, SyncEverySec)
	if got := dumpDBs(db); got != want {
		t.Fatalf("loaded:\n%s\nwant:\n%s", got, want)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, rep, err := CheckDataFile(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Unchecked == 0 && rep.Frames > 0 && rep.Damage == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file was not rewritten with checksums: %+v", rep)
		}
		time.Sleep(10 * time.Millisecond)
	}
	db.Close()
	db = openSync(t, dir, SyncEverySec)
	defer db.Close()
	if got := dumpDBs(db); got != want {
		t.Fatalf("after the rewrite:\n%q\nwant:\n%q", got, want)
	}
}

// A damaged length in records written before checksums makes a record run
// to the end of the file, as a torn last write does; frames after it show
// it is not the last write, and start-up refuses the file rather than
// dropping everything after the damage.
func TestDamagedLengthBeforeFramesIsNotATornEnd(t *testing.T) {
	data, states := writeSmallJournal(t)
	// The first half of the file's frames as before checksums, the rest
	// as checksummed frames appended to it.
	half := 0
	for half < len(data)/2 {
		n, _, _ := parseFrameHeader((*[frameHeaderLen]byte)(data[half : half+frameHeaderLen]))
		half += frameHeaderLen + int(n)
	}
	// (Chained from the first appended, as a version with links appends
	// them to such a file.)
	var tail bytes.Buffer
	if _, err := relinkFrames(&tail, bytes.NewReader(data), int64(half), int64(len(data)), 0); err != nil {
		t.Fatal(err)
	}
	b := append(unframe(t, data[:half]), tail.Bytes()...)
	dir := t.TempDir()
	if got, err := loadBytes(t, dir, b); err != nil || got != states[len(states)-1] {
		t.Fatalf("the undamaged file: %v\n%s", err, got)
	}
	// The first string's length made to run past the end.
	bad := []byte(strings.Replace(string(b), "$3\r\n", "$99999\r\n", 1))
	_, err := loadBytes(t, dir, bad)
	if err == nil || !strings.Contains(err.Error(), "runs past a checksummed frame") || !damagedAt.MatchString(err.Error()) {
		t.Fatalf("start-up on a damaged length: %v", err)
	}
}
