package store

import (
	"strings"
	"testing"
)

// A long string's item is built in its journal record, which becomes the
// pending frame, and a rewrite writes it from the item: every path keeps
// the bytes, with short records in the same transaction and the same
// write, across a rewrite and a reopen.
func TestLongValuesSurviveJournalAndRewrite(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncAlways)
	long := func(c byte, n int) string { return strings.Repeat(string(c), n-1) + "\r" }
	want := map[string]string{
		"alone": long('a', bigItem), "first": long('b', bigItem+7), "after": long('c', 3<<20),
		"short": "s", "over": long('d', bigItem),
	}
	if err := setKey(db, "alone", want["alone"]); err != nil {
		t.Fatal(err)
	}
	err := db.Update(func(tx *Tx) error {
		tx.SetString("first", want["first"], 0, false)
		tx.SetString("short", "s", 0, false)
		tx.SetString("after", want["after"], 0, false)
		tx.SetString("over", "x", 0, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := setKey(db, "over", want["over"]); err != nil {
		t.Fatal(err)
	}
	if err := setKey(db, "later", "l"); err != nil {
		t.Fatal(err)
	}
	want["later"] = "l"
	check := func(db *DB, when string) {
		t.Helper()
		for k, v := range want {
			if got, ok := getKey(t, db, k); !ok || got != v {
				t.Fatalf("%s: %s is %d bytes (%v), want %d", when, k, len(got), ok, len(v))
			}
		}
	}
	check(db, "written")
	db.Close()
	db = openSync(t, dir, SyncAlways)
	check(db, "reopened")
	if err := db.Save(); err != nil {
		t.Fatal(err)
	}
	check(db, "rewritten")
	db.Close()
	db = openSync(t, dir, SyncAlways)
	defer db.Close()
	check(db, "reopened after the rewrite")
}
