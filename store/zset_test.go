package store

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"
)

func memDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func zopen(t *testing.T, tx *Tx, key string) *ZSet {
	t.Helper()
	z, err := tx.OpenZSet(key)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func collect(f func(func(Entry) bool)) string {
	var out string
	f(func(e Entry) bool {
		out += fmt.Sprintf("%s=%v ", e.Member, e.Score)
		return true
	})
	return out
}

func TestZSetOrderAndBounds(t *testing.T) {
	db := memDB(t)
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		for _, e := range []Entry{{"b", 0}, {"a", math.Copysign(0, -1)}, {"c", math.Inf(-1)},
			{"d", math.Inf(1)}, {"e", -1.5}, {"f", 2}, {"", 2}, {"f\x00", 2}} {
			if !z.Put(e.Member, e.Score) {
				t.Errorf("put %q not new", e.Member)
			}
		}
		if z.Put("f", 2) {
			t.Error("re-put reported new")
		}
		z.Flush()
		if z.Len() != 8 {
			t.Errorf("len %d", z.Len())
		}
		got := collect(z.Ascend)
		want := "c=-Inf e=-1.5 a=0 b=0 =2 f=2 f\x00=2 d=+Inf "
		if got != want {
			t.Errorf("ascend %q want %q", got, want)
		}
		got = collect(func(fn func(Entry) bool) {
			z.RangeByScore(ScoreBound{0, false}, ScoreBound{2, true}, false, fn)
		})
		if got != "a=0 b=0 " {
			t.Errorf("[0,2) = %q", got)
		}
		got = collect(func(fn func(Entry) bool) {
			z.RangeByScore(ScoreBound{0, true}, ScoreBound{math.Inf(1), false}, true, fn)
		})
		if got != "d=+Inf f\x00=2 f=2 =2 " {
			t.Errorf("rev (0,inf] = %q", got)
		}
		for i, m := range []string{"c", "e", "a", "b", "", "f", "f\x00", "d"} {
			if r, ok := z.Rank(m, false); !ok || r != int64(i) {
				t.Errorf("rank %q = %d %v", m, r, ok)
			}
			if r, _ := z.Rank(m, true); r != int64(7-i) {
				t.Errorf("revrank %q = %d", m, r)
			}
		}
		got = collect(func(fn func(Entry) bool) { z.RangeByRank(1, 3, true, fn) })
		if got != "f\x00=2 f=2 =2 " {
			t.Errorf("revrank 1..3 = %q", got)
		}
		got = collect(func(fn func(Entry) bool) { z.RangeByRank(5, 7, false, fn) })
		if got != "f=2 f\x00=2 d=+Inf " {
			t.Errorf("rank 5..7 = %q", got)
		}
		return nil
	})
}

func TestZSetLexAndDelete(t *testing.T) {
	db := memDB(t)
	db.Update(func(tx *Tx) error {
		tx.SetString("s", "x", 0, false)
		if _, err := tx.OpenZSet("s"); err != ErrWrongType {
			t.Errorf("wrong type: %v", err)
		}
		z := zopen(t, tx, "z")
		for _, m := range []string{"a", "b", "c", "d", "e"} {
			z.Put(m, 7)
		}
		z.Flush()
		lex := func(min, max LexBound, rev bool) string {
			return collect(func(fn func(Entry) bool) { z.RangeByLex(min, max, rev, 0, fn) })
		}
		if g := lex(LexBound{Value: "b", Excl: true}, LexBound{Value: "d"}, false); g != "c=7 d=7 " {
			t.Errorf("(b [d = %q", g)
		}
		if g := lex(LexBound{Inf: -1}, LexBound{Value: "c", Excl: true}, true); g != "b=7 a=7 " {
			t.Errorf("rev - (c = %q", g)
		}
		if g := lex(LexBound{Inf: 1}, LexBound{Inf: 1}, false); g != "" {
			t.Errorf("+ + = %q", g)
		}
		for _, m := range []string{"a", "b", "c", "d", "e"} {
			z.Remove(m)
		}
		z.Flush()
		if tx.Exists("z") {
			t.Error("empty zset kept")
		}
		return nil
	})
}

// TestZSetBoundedQueryDoesNotScan checks with the visit counter that a
// LIMIT 0 1 style score query on a 1,000,000-member set touches O(1) items.
func TestZSetBoundedQueryDoesNotScan(t *testing.T) {
	t.Parallel()
	db := memDB(t)
	const n = 1000000
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "big")
		for i := 0; i < n; i++ {
			z.Put("m"+strconv.Itoa(i), float64(i))
		}
		z.Flush()
		return nil
	})
	db.View(func(tx *Tx) error {
		z := zopen(t, tx, "big")
		if z.Len() != n {
			t.Fatalf("len %d", z.Len())
		}
		check := func(name string, want string, f func(fn func(Entry) bool)) {
			t.Helper()
			before := z.visits
			var got string
			f(func(e Entry) bool { got = fmt.Sprintf("%s=%v", e.Member, e.Score); return false })
			if v := z.visits - before; v > 2 {
				t.Errorf("%s visited %d items", name, v)
			}
			if got != want {
				t.Errorf("%s = %q want %q", name, got, want)
			}
		}
		check("[500000.5,+inf] limit 1", "m500001=500001", func(fn func(Entry) bool) {
			z.RangeByScore(ScoreBound{500000.5, false}, ScoreBound{math.Inf(1), false}, false, fn)
		})
		check("(-inf,(700000] rev limit 1", "m699999=699999", func(fn func(Entry) bool) {
			z.RangeByScore(ScoreBound{math.Inf(-1), false}, ScoreBound{700000, true}, true, fn)
		})
		check("(999999,+inf]", "", func(fn func(Entry) bool) {
			z.RangeByScore(ScoreBound{999999, true}, ScoreBound{math.Inf(1), false}, false, fn)
		})
		check("rank 999998 from the top", "m999998=999998", func(fn func(Entry) bool) {
			z.RangeByRank(999998, 999998, false, fn)
		})
		return nil
	})
}

func BenchmarkZSetPut(b *testing.B) {
	db, _ := Open(Options{Dir: ":memory:"})
	defer db.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db.Update(func(tx *Tx) error {
			z, _ := tx.OpenZSet("q")
			z.Put("job-"+strconv.Itoa(i), float64(i%1000))
			z.Flush()
			return nil
		})
	}
}

func BenchmarkZSetFirstByScore(b *testing.B) {
	db, _ := Open(Options{Dir: ":memory:"})
	defer db.Close()
	db.Update(func(tx *Tx) error {
		z, _ := tx.OpenZSet("q")
		for i := 0; i < 100000; i++ {
			z.Put("job-"+strconv.Itoa(i), float64(i))
		}
		z.Flush()
		return nil
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db.View(func(tx *Tx) error {
			z, _ := tx.OpenZSet("q")
			z.RangeByScore(ScoreBound{Value: float64(i % 100000)}, ScoreBound{Value: math.Inf(1)}, false,
				func(Entry) bool { return false })
			return nil
		})
	}
}

func TestZSetReopenAndRename(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		z.Put("a", 2)
		z.Put("b", math.Inf(-1))
		z.Put("c", 1e-310)
		z.Flush()
		z.Put("a", 3) // a score change alone keeps the metadata item
		z.Remove("zz")
		z.Flush()
		if !tx.Rename("z", "y") {
			t.Error("rename failed")
		}
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if tx.Exists("z") {
			t.Error("z survived rename")
		}
		z := zopen(t, tx, "y")
		if got := collect(z.Ascend); got != "b=-Inf c=1e-310 a=3 " || z.Len() != 3 {
			t.Errorf("after reopen %q len %d", got, z.Len())
		}
		return nil
	})
}

// TestZSetIndexEdges checks a set kept as items on what the random walk
// does not reach: member ranges of an equal-score set, and infinite scores
// and bounds, against a filter of the whole set.
func TestZSetIndexEdges(t *testing.T) {
	db := memDB(t)
	var members []string
	db.Update(func(tx *Tx) error {
		lex, inf := zopen(t, tx, "lex"), zopen(t, tx, "inf")
		for i := 0; i < 300; i++ {
			m := fmt.Sprintf("m%03d", i)
			members = append(members, m)
			lex.Put(m, 7)
			inf.Put(m, float64(i%5-2))
		}
		inf.Put("ninf", math.Inf(-1))
		inf.Put("pinf", math.Inf(1))
		inf.Put("pinf2", math.Inf(1))
		lex.Flush()
		inf.Flush()
		return nil
	})
	bounds := []LexBound{{Inf: -1}, {Inf: 1}, {Value: "m100"}, {Value: "m100", Excl: true},
		{Value: "m2"}, {Value: "m2", Excl: true}, {Value: "m299"}, {Value: "m299", Excl: true}, {Value: "a"}, {Value: "z"}}
	db.View(func(tx *Tx) error {
		z := zopen(t, tx, "lex")
		for _, min := range bounds {
			for _, max := range bounds {
				for _, rev := range []bool{false, true} {
					var want []string
					if LexRangeNonEmpty(min, max) {
						for _, m := range members {
							if lexGteMin(m, min) && lexLteMax(m, max) {
								want = append(want, m)
							}
						}
					}
					if rev {
						slices.Reverse(want)
					}
					var got []string
					z.RangeByLex(min, max, rev, 0, func(e Entry) bool { got = append(got, e.Member); return true })
					if !slices.Equal(got, want) {
						t.Errorf("lex %v %v rev %v: %d members, want %d", min, max, rev, len(got), len(want))
					}
				}
			}
		}
		z = zopen(t, tx, "inf")
		var all []Entry
		z.Ascend(func(e Entry) bool { all = append(all, e); return true })
		if len(all) != 303 || all[0].Member != "ninf" || all[302].Member != "pinf2" {
			t.Fatalf("order: %d entries, %v ... %v", len(all), all[0], all[len(all)-1])
		}
		sb := []ScoreBound{{Value: math.Inf(-1)}, {Value: math.Inf(-1), Excl: true}, {Value: math.Inf(1)},
			{Value: math.Inf(1), Excl: true}, {Value: 0}, {Value: 0, Excl: true}, {Value: 1.5}, {Value: -2, Excl: true}}
		for _, min := range sb {
			for _, max := range sb {
				for _, rev := range []bool{false, true} {
					want := modelScoreRange(all, min, max, rev)
					var got []Entry
					z.RangeByScore(min, max, rev, func(e Entry) bool { got = append(got, e); return true })
					if !slices.Equal(got, want) {
						t.Errorf("score %v %v rev %v: %d entries, want %d", min, max, rev, len(got), len(want))
					}
				}
			}
		}
		return nil
	})
}

// modelScoreRange is RangeByScore over entries in order, by filtering.
func modelScoreRange(entries []Entry, min, max ScoreBound, rev bool) []Entry {
	var out []Entry
	for _, e := range entries {
		if (e.Score > min.Value || !min.Excl && e.Score == min.Value) && (e.Score < max.Value || !max.Excl && e.Score == max.Value) {
			out = append(out, e)
		}
	}
	if rev {
		slices.Reverse(out)
	}
	return out
}

// TestZSetRemovalsSurviveReopen: members removed from a set kept as items,
// several in one transaction, stay removed after the data file is read
// back, and nothing else is removed with them.
func TestZSetRemovalsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	want := map[string]float64{}
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		for i := 0; i < 300; i++ {
			m := fmt.Sprintf("member-%03d", i)
			z.Put(m, float64(i))
			want[m] = float64(i)
		}
		z.Flush()
		return nil
	})
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		for i := 0; i < 300; i += 3 {
			m := fmt.Sprintf("member-%03d", i)
			z.Remove(m)
			delete(want, m)
		}
		var es []Entry
		z.RangeByRank(0, 9, false, func(e Entry) bool { es = append(es, e); return true })
		for _, e := range es {
			z.RemoveEntry(e)
			delete(want, e.Member)
		}
		z.Flush()
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		got := map[string]float64{}
		z.Ascend(func(e Entry) bool { got[e.Member] = e.Score; return true })
		var items int
		z.Members("", func(Entry) bool { items++; return true })
		if len(got) != len(want) || items != len(want) || z.Len() != int64(len(want)) {
			t.Fatalf("after reopen: %d in order, %d items, len %d, want %d", len(got), items, z.Len(), len(want))
		}
		for m, s := range want {
			if got[m] != s {
				t.Fatalf("after reopen: %s = %v, want %v", m, got[m], s)
			}
		}
		return nil
	})
}
