package store

import (
	"strconv"
	"testing"
)

// TestFlushAllEmptiesEveryDatabase: FLUSHALL leaves no item but the
// layout's version, reports every key it deleted as touched, and what the
// data file replays is the same: keys written before it in the same
// transaction are gone, keys written after it stay.
func TestFlushAllEmptiesEveryDatabase(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		for d := 0; d < 3; d++ {
			tx.Select(d)
			tx.SetString("s", "v", tx.Now()+3600_000, false)
			tx.HSet("h", "f", "v")
			tx.SAdd("set", "m")
			tx.ListPush("l", []string{"a"}, false, false)
			zputN(tx, "zbig", zInlineMaxBytes/8+1)
		}
		return nil
	})
	var touched []KeyRef
	db.Update(func(tx *Tx) error {
		tx.Select(1)
		tx.SetString("before", "v", 0, false)
		tx.FlushAll()
		touched = append(touched, tx.Touched()...)
		tx.SetString("after", "v", 0, false)
		return nil
	})
	check := func(db *DB, when string) {
		t.Helper()
		db.View(func(tx *Tx) error {
			var left []string
			tx.btx.Ascend("", func(k, v string) bool {
				left = append(left, k)
				return true
			})
			want := []string{metaKey(1, "after"), formatKey}
			if len(left) != len(want) || left[0] != want[0] || left[1] != want[1] {
				t.Errorf("%s: items %q, want %q", when, left, want)
			}
			tx.Select(1)
			if v, ok, _ := tx.GetString("after"); !ok || v != "v" {
				t.Errorf("%s: after = %q %v", when, v, ok)
			}
			if z, err := tx.OpenZSet("zbig"); err != nil || z.Len() != 0 {
				t.Errorf("%s: zbig still has members", when)
			}
			return nil
		})
	}
	check(db, "before reopening")
	seen := map[string]bool{}
	for _, r := range touched {
		seen[strconv.Itoa(r.DB)+"/"+r.Key] = true
	}
	for d := 0; d < 3; d++ {
		for _, k := range []string{"s", "h", "set", "l", "zbig"} {
			if !seen[strconv.Itoa(d)+"/"+k] {
				t.Errorf("FLUSHALL did not report %d/%s as touched", d, k)
			}
		}
	}
	if !seen["1/before"] {
		t.Error("FLUSHALL did not report 1/before as touched")
	}
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	check(db, "after reopening")
	// The sorted set made anew after the flush builds its order again.
	db.Update(func(tx *Tx) error {
		zputN(tx, "zbig", zInlineMaxBytes/8+1)
		if z, _ := tx.OpenZSet("zbig"); z.Len() != zInlineMaxBytes/8+1 {
			t.Errorf("zbig has %d members after refilling", z.Len())
		}
		return nil
	})
}

// TestFlushDBAloneOrBeside: FLUSHDB empties the selected database and
// leaves the others, whether it is the only one with keys (then it takes
// FLUSHALL's way) or not, and the data file replays the same.
func TestFlushDBAloneOrBeside(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	fill := func(tx *Tx, d int) {
		tx.Select(d)
		tx.HSet("h", "f", "v")
		zputN(tx, "zbig", zInlineMaxBytes/8+1)
		tx.SetString("s", "v", tx.Now()+3600_000, false)
	}
	keys := func(tx *Tx, d int) int {
		tx.Select(d)
		return tx.DBSize()
	}
	db.Update(func(tx *Tx) error {
		fill(tx, 0)
		tx.Select(0)
		tx.FlushDB() // alone
		if n := keys(tx, 0); n != 0 {
			t.Errorf("db 0 has %d keys after FLUSHDB alone", n)
		}
		fill(tx, 0)
		fill(tx, 2)
		tx.Select(0)
		tx.FlushDB() // beside db 2
		if n0, n2 := keys(tx, 0), keys(tx, 2); n0 != 0 || n2 != 3 {
			t.Errorf("after FLUSHDB beside db 2: db 0 has %d keys, db 2 %d", n0, n2)
		}
		tx.Select(2)
		tx.FlushDB() // alone again
		if n := keys(tx, 2); n != 0 {
			t.Errorf("db 2 has %d keys after FLUSHDB alone", n)
		}
		fill(tx, 1)
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if n0, n1, n2 := keys(tx, 0), keys(tx, 1), keys(tx, 2); n0 != 0 || n1 != 3 || n2 != 0 {
			t.Errorf("after reopening: %d, %d, %d keys in dbs 0-2, want 0, 3, 0", n0, n1, n2)
		}
		return nil
	})
}
