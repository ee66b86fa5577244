package store

import (
	"os"
	"path/filepath"
	"testing"
)

func openTemp(t *testing.T, dir string) *DB {
	t.Helper()
	return openSync(t, dir, SyncAlways)
}

func openSync(t *testing.T, dir string, sync Sync) *DB {
	t.Helper()
	db, err := Open(Options{Dir: dir, Sync: sync})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestStringsExpiryAndReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		tx.SetString("a", "1", 0, false)
		tx.SetString("gone", "x", tx.Now()-1+2, false)
		tx.Select(3)
		tx.SetString("a", "db3", 0, false)
		return nil
	})
	db.Update(func(tx *Tx) error {
		if !tx.Rename("a", "b") {
			t.Error("rename failed")
		}
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if _, ok, _ := tx.GetString("a"); ok {
			t.Error("a should be renamed away")
		}
		if v, ok, _ := tx.GetString("b"); !ok || v != "1" {
			t.Errorf("b = %q %v", v, ok)
		}
		tx.Select(3)
		if v, _, _ := tx.GetString("a"); v != "db3" {
			t.Errorf("db3 a = %q", v)
		}
		return nil
	})
}

func TestRepairTail(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error { tx.SetString("k", "v", 0, false); return nil })
	db.Close()
	path := filepath.Join(dir, DataFile)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(tornFrame("*3\r\n$3\r\nset\r\n$2\r\nab\r\n$1\r\nx\r\n", 20))
	f.Close()
	db = openTemp(t, dir)
	db.View(func(tx *Tx) error {
		if v, _, _ := tx.GetString("k"); v != "v" {
			t.Errorf("k = %q", v)
		}
		return nil
	})
	db.Close()
	// Damage in the middle refuses to start.
	data, _ := os.ReadFile(path)
	data[0] = '!'
	os.WriteFile(path, data, 0o644)
	if _, err := Open(Options{Dir: dir}); err == nil {
		t.Fatal("expected refusal on damaged file")
	}
}

func TestScanAndFlush(t *testing.T) {
	db := openTemp(t, "")
	defer db.Close()
	db.Update(func(tx *Tx) error {
		for _, k := range []string{"b", "a", "c\x00d"} {
			tx.SetString(k, k, 0, false)
		}
		var got []string
		tx.ScanKeys("", func(k string, _ Type) bool { got = append(got, k); return true })
		if len(got) != 3 || got[0] != "a" || got[2] != "c\x00d" {
			t.Errorf("scan %q", got)
		}
		tx.FlushDB()
		if tx.DBSize() != 0 {
			t.Error("flush left keys")
		}
		return nil
	})
}

// tornFrame is the first cut bytes of a frame of records: the end of a
// data file after a crash in the middle of a write.
func tornFrame(records string, cut int) []byte {
	b := append(frameSpace[:], records...)
	sealFrame(b, 0)
	return b[:cut]
}
