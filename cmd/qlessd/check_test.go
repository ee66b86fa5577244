package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/store"
)

// writeStore writes n keys through the store, a transaction each, and
// returns the data file's bytes.
func writeStore(t *testing.T, dir string, n int) []byte {
	t.Helper()
	db, err := store.Open(store.Options{Dir: dir, Sync: store.SyncNo})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		db.Update(func(tx *store.Tx) error {
			tx.SetString("k"+strconv.Itoa(i), strings.Repeat("v", 100), 0, false)
			return nil
		})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, store.DataFile))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func check(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := runCheck(args, &out, &errs)
	return code, out.String() + errs.String()
}

// keys counts the keys a store on dir loads, or fails the test.
func keys(t *testing.T, dir string) int {
	t.Helper()
	db, err := store.Open(store.Options{Dir: dir, Sync: store.SyncNo})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	db.View(func(tx *store.Tx) error { n = tx.DBSize(); return nil })
	return n
}

// backupOf returns the copy --repair says it wrote, after checking it
// holds want.
func backupOf(t *testing.T, out string, want []byte) {
	t.Helper()
	m := regexp.MustCompile(`copied to (\S+),`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("repair does not say where the copy is:\n%s", out)
	}
	got, err := os.ReadFile(m[1])
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the copy %s does not hold the file as it was (%v)", m[1], err)
	}
}

func TestCheckReportsAndRepairs(t *testing.T) {
	t.Run("ok", func(t *testing.T) {
		dir := t.TempDir()
		data := writeStore(t, dir, 20)
		code, out := check(t, "--dir", dir)
		m := regexp.MustCompile(`records: (\d+) kept`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no record count:\n%s", out)
		}
		if n, _ := strconv.Atoi(m[1]); code != checkLoads || !strings.Contains(out, "state: ok") || n < 20 ||
			!strings.Contains(out, "last good offset: "+strconv.Itoa(len(data))) {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("incomplete last write", func(t *testing.T) {
		dir := t.TempDir()
		data := writeStore(t, dir, 20)
		cut := data[:len(data)-30]
		os.WriteFile(filepath.Join(dir, store.DataFile), cut, 0o644)
		code, out := check(t, "--dir", dir)
		if code != checkLoads || !strings.Contains(out, "the last write is incomplete") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		code, out = check(t, "--dir", dir, "--repair")
		if code != checkLoads || !strings.Contains(out, "repaired") {
			t.Fatalf("repair: exit %d:\n%s", code, out)
		}
		backupOf(t, out, cut)
		if code, out := check(t, "--dir", dir); code != checkLoads || !strings.Contains(out, "state: ok") {
			t.Fatalf("after repair: exit %d:\n%s", code, out)
		}
		if n := keys(t, dir); n != 19 {
			t.Fatalf("%d keys after repair, want 19", n)
		}
	})
	t.Run("damage", func(t *testing.T) {
		dir := t.TempDir()
		data := writeStore(t, dir, 20)
		bad := append([]byte(nil), data...)
		at := len(bad) / 2
		bad[at] ^= 0x40
		os.WriteFile(filepath.Join(dir, store.DataFile), bad, 0o644)
		code, out := check(t, "--dir", dir)
		if code != checkDamaged || !regexp.MustCompile(`state: damaged at byte \d+: .*checksum`).MatchString(out) {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := store.Open(store.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "qlessd check --dir") {
			t.Fatalf("start-up on the damaged file: %v", err)
		}
		code, out = check(t, "--dir", dir, "--repair")
		if code != checkLoads || !strings.Contains(out, "repaired") {
			t.Fatalf("repair: exit %d:\n%s", code, out)
		}
		backupOf(t, out, bad)
		n := keys(t, dir)
		if n == 0 || n >= 20 {
			t.Fatalf("%d keys after repair, want those written before the damage", n)
		}
	})
	// An empty or missing directory holds nothing to check: a mistyped
	// --dir must not pass as a healthy file.
	t.Run("no data file", func(t *testing.T) {
		empty := t.TempDir()
		for _, d := range []string{empty, filepath.Join(empty, "missing")} {
			code, out := check(t, "--dir", d)
			if code != checkFailed || !strings.Contains(out, "there is no data file in "+d) || strings.Contains(out, "state: ok") {
				t.Fatalf("check --dir %s: exit %d:\n%s", d, code, out)
			}
		}
		if _, err := os.Stat(filepath.Join(empty, "missing")); !os.IsNotExist(err) {
			t.Fatalf("check created the missing directory: %v", err)
		}
	})
	// A directory a store holds open is refused, repair or not.
	t.Run("in use", func(t *testing.T) {
		dir := t.TempDir()
		writeStore(t, dir, 3)
		db, err := store.Open(store.Options{Dir: dir, Sync: store.SyncNo})
		if err != nil {
			t.Fatal(err)
		}
		want := "data directory " + dir + " is in use by pid " + strconv.Itoa(os.Getpid())
		for _, args := range [][]string{{"--dir", dir}, {"--dir", dir, "--repair"}} {
			if code, out := check(t, args...); code != checkFailed || !strings.Contains(out, want) {
				t.Fatalf("check %q on a directory in use: exit %d:\n%s", args, code, out)
			}
		}
		db.Close()
		if code, out := check(t, "--dir", dir); code != checkLoads || !strings.Contains(out, "state: ok") {
			t.Fatalf("check after the store closed: exit %d:\n%s", code, out)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		if code, _ := check(t, "--dir", t.TempDir(), "extra"); code != checkFailed {
			t.Fatalf("exit %d", code)
		}
	})
}
