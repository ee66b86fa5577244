package store

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// TestReplayBuildsSortedSets reopens data files whose sorted-set member
// records take each path the loader has (journal_replay.go): members
// arriving in order each once (a rewritten file), a member moved above
// the others (arrivals still in order, one member twice), members moved
// down and deleted, and a set's members beside a sorted set's; after each
// reopen and after a rewrite, the sets hold what the model says, in
// Redis's order.
func TestReplayBuildsSortedSets(t *testing.T) {
	dir := t.TempDir()
	db := openSync(t, dir, SyncNo)
	model := map[string]float64{}
	put := func(m string, sc float64) {
		t.Helper()
		if err := db.Update(func(tx *Tx) error {
			z, err := tx.OpenZSet("z")
			if err != nil {
				return err
			}
			z.Put(m, sc)
			z.Flush()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		model[m] = sc
	}
	for i := range 200 {
		put(fmt.Sprintf("member-%04d", i), float64(i))
	}
	// A set past its inline limits keeps its members as items under the
	// same tag as a sorted set's.
	var setMembers []string
	for i := range 300 {
		setMembers = append(setMembers, fmt.Sprintf("s-%d", i))
	}
	if err := db.Update(func(tx *Tx) error { _, err := tx.SAdd("s", setMembers...); return err }); err != nil {
		t.Fatal(err)
	}
	steps := []func(){
		func() {}, // in order, each once
		func() { put("member-0003", 1000) },
		func() { put("member-0007", -5); put("member-0100", 2.5) },
		func() {
			db.Update(func(tx *Tx) error {
				z, _ := tx.OpenZSet("z")
				z.Remove("member-0050")
				z.Flush()
				return nil
			})
			delete(model, "member-0050")
		},
	}
	for i, step := range steps {
		step()
		for _, rewrite := range []bool{false, true} {
			if rewrite {
				if err := db.Save(); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openSync(t, dir, SyncNo)
			checkReplayedZSet(t, db, model, fmt.Sprintf("step %d, rewrite %v", i, rewrite))
		}
	}
	db.Close()
}

func checkReplayedZSet(t *testing.T, db *DB, model map[string]float64, where string) {
	t.Helper()
	want := slices.SortedFunc(maps.Keys(model), func(a, b string) int {
		return compareEntries(Entry{Member: a, Score: model[a]}, Entry{Member: b, Score: model[b]})
	})
	db.View(func(tx *Tx) error {
		z, err := tx.OpenZSet("z")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		z.Ascend(func(e Entry) bool {
			if sc, ok := z.Score(e.Member); !ok || sc != e.Score || model[e.Member] != sc {
				t.Errorf("%s: %s scores %v in order, %v %v in the map, %v in the model", where, e.Member, e.Score, sc, ok, model[e.Member])
			}
			got = append(got, e.Member)
			return true
		})
		if z.Len() != int64(len(model)) || !slices.Equal(got, want) {
			t.Errorf("%s: %d members (Len %d), want %d: %q...", where, len(got), z.Len(), len(want), got[:min(5, len(got))])
		}
		if n, _ := tx.SCard("s"); n != 300 {
			t.Errorf("%s: SCARD s = %d, want 300", where, n)
		}
		if ok, _ := tx.SIsMember("s", "s-299"); !ok {
			t.Errorf("%s: s-299 is not a member of s", where)
		}
		return nil
	})
}
