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
