package store

import (
	"fmt"
	"strings"
	"testing"
)

func TestHashBasics(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		n, err := tx.HSet("h", "b", "2", "a", "1", "\x00bin", "v\r\n", "a", "again")
		if err != nil || n != 3 {
			t.Fatalf("HSet = %d, %v", n, err)
		}
		if n, _ := tx.HSet("h", "a", "x", "c", "3"); n != 1 {
			t.Errorf("HSet existing+new = %d", n)
		}
		if v, ok, _ := tx.HGet("h", "a"); !ok || v != "x" {
			t.Errorf("HGet a = %q %v", v, ok)
		}
		if v, _, _ := tx.HGet("h", "\x00bin"); v != "v\r\n" {
			t.Errorf("binary field = %q", v)
		}
		if n, _ := tx.HLen("h"); n != 4 {
			t.Errorf("HLen = %d", n)
		}
		if ok, _ := tx.HSetNX("h", "a", "no"); ok {
			t.Error("HSetNX overwrote")
		}
		if ok, _ := tx.HSetNX("h", "d", "4"); !ok {
			t.Error("HSetNX did not add")
		}
		// A listpack hash keeps insertion order; an update keeps the position.
		all, _ := tx.HGetAll("h")
		if got := strings.Join(all, ","); got != "b,2,a,x,\x00bin,v\r\n,c,3,d,4" {
			t.Errorf("HGetAll = %q", got)
		}
		var from []string
		tx.HIterate("h", "b", func(f, _ string) bool { from = append(from, f); return len(from) < 2 })
		if strings.Join(from, ",") != "b,c" {
			t.Errorf("HIterate from b = %q", from)
		}
		if n, _ := tx.HDel("h", "a", "zz", "a"); n != 1 {
			t.Errorf("HDel = %d", n)
		}
		if ok, _ := tx.HExists("h", "a"); ok {
			t.Error("a survived HDel")
		}
		return nil
	})
	// Fields of one key never show through another key's prefix.
	db.Update(func(tx *Tx) error {
		tx.HSet("h2", "z", "1")
		all, _ := tx.HGetAll("h")
		if len(all) != 8 {
			t.Errorf("h has %d items after writing h2", len(all))
		}
		tx.HDel("h", "\x00bin", "b", "c", "d")
		if tx.Exists("h") {
			t.Error("empty hash still exists")
		}
		if n, _ := tx.HLen("h"); n != 0 {
			t.Errorf("HLen of deleted = %d", n)
		}
		if all, _ := tx.HGetAll("h2"); len(all) != 2 {
			t.Errorf("h2 = %q", all)
		}
		return nil
	})
}

func TestHashWrongTypeAndTTL(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.SetString("s", "v", 0, false)
		if _, err := tx.HSet("s", "f", "v"); err != ErrWrongType {
			t.Errorf("HSet on string: %v", err)
		}
		if _, _, err := tx.HGet("s", "f"); err != ErrWrongType {
			t.Errorf("HGet on string: %v", err)
		}
		if _, err := tx.HIncrBy("s", "f", 1); err != ErrWrongType {
			t.Errorf("HIncrBy on string: %v", err)
		}
		if v, _, _ := tx.GetString("s"); v != "v" {
			t.Errorf("string changed to %q", v)
		}
		tx.HSet("h", "f", "v")
		at := tx.Now() + 100000
		tx.SetExpireAt("h", at)
		tx.HSet("h", "g", "w")
		tx.HDel("h", "f")
		tx.HIncrBy("h", "n", 3)
		if got, _ := tx.ExpireAt("h"); got != at {
			t.Errorf("TTL lost by hash writes: %d, want %d", got, at)
		}
		return nil
	})
}

func TestHashIncr(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		if n, err := tx.HIncrBy("h", "n", -5); n != -5 || err != nil {
			t.Errorf("HIncrBy new = %d %v", n, err)
		}
		tx.HSet("h", "max", "9223372036854775807", "s", "abc", "z", "01")
		if _, err := tx.HIncrBy("h", "max", 1); err != ErrOverflow {
			t.Errorf("overflow: %v", err)
		}
		for _, f := range []string{"s", "z"} {
			if _, err := tx.HIncrBy("h", f, 1); err != ErrHashNotInt {
				t.Errorf("HIncrBy %s: %v", f, err)
			}
		}
		if v, _, _ := tx.HGet("h", "max"); v != "9223372036854775807" {
			t.Errorf("failed incr wrote %q", v)
		}
		// A failed update of a missing key creates nothing.
		_, err := tx.HUpdate("new", "f", func(string, bool) (string, error) { return "", ErrOverflow })
		if err != ErrOverflow || tx.Exists("new") {
			t.Errorf("failed HUpdate: %v, exists %v", err, tx.Exists("new"))
		}
		return nil
	})
}

func TestHashEncodingAndReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		for i := 0; i < hashMaxCompact; i++ {
			tx.HSet("h", fmt.Sprintf("f%03d", i), "v")
		}
		if c, _ := tx.HCompact("h"); !c {
			t.Error("hash-max-listpack-entries short fields should stay compact")
		}
		tx.HSet("h", "one-more", "v")
		if c, _ := tx.HCompact("h"); c {
			t.Error("one field more should make a hashtable")
		}
		tx.HDel("h", "one-more", "f000")
		if c, _ := tx.HCompact("h"); c {
			t.Error("a hashtable stays one after shrinking")
		}
		tx.HSet("w", "f", strings.Repeat("x", hashMaxCompactSz))
		if c, _ := tx.HCompact("w"); !c {
			t.Error("64-byte value should stay compact")
		}
		tx.HSet("w", strings.Repeat("y", hashMaxCompactSz+1), "v")
		if c, _ := tx.HCompact("w"); c {
			t.Error("65-byte field should convert")
		}
		tx.Rename("w", "w2")
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if n, _ := tx.HLen("h"); n != hashMaxCompact-1 {
			t.Errorf("HLen after reopen = %d", n)
		}
		if v, _, _ := tx.HGet("w2", "f"); len(v) != hashMaxCompactSz {
			t.Errorf("renamed hash field = %d bytes", len(v))
		}
		if c, _ := tx.HCompact("w2"); c {
			t.Error("encoding lost by rename")
		}
		if tx.Exists("w") {
			t.Error("rename source remains")
		}
		return nil
	})
}
