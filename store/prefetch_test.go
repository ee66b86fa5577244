package store

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPrefetchMetasAnswersAsLookups fills job-like key families (a hash and
// the keys named after it, each present or not, of one type or another,
// some expiring soon) with, now and then, other keys sorting between them,
// sometimes more than a walk passes. After a prefetch, lookups in that
// transaction, and in the next one, must answer what plain lookups
// answered.
func TestPrefetchMetasAnswersAsLookups(t *testing.T) {
	db := memDB(t)
	r := rand.New(rand.NewPCG(3, 5))
	const jobs = 300
	family := func(i int) []string {
		k := "ql:j:" + strconv.Itoa(i)
		return []string{k, k + "-dependencies", k + "-dependents", k + "-history"}
	}
	db.Update(func(tx *Tx) error {
		for i := 0; i < jobs; i++ {
			for _, k := range family(i) {
				switch r.IntN(5) {
				case 0:
					tx.SetString(k, "v", 0, false)
				case 1:
					tx.HSet(k, "f", "v")
				case 2:
					tx.SAdd(k, "m")
				case 3:
					tx.SetString(k, "v", tx.Now()+int64(r.IntN(3))*1000, false)
				}
			}
			if r.IntN(3) == 0 {
				mid := []string{"-c", "-e", "-g"}[r.IntN(3)]
				for j := r.IntN(2 * prefetchSteps); j >= 0; j-- {
					tx.SetString(family(i)[0]+mid+strconv.Itoa(j), "x", 0, false)
				}
			}
		}
		return nil
	})
	for round := 0; round < 3; round++ {
		want := map[string]Type{}
		db.shared.drop()
		db.View(func(tx *Tx) error {
			for i := 0; i < jobs; i++ {
				for _, k := range family(i) {
					want[k] = tx.TypeOf(k)
				}
			}
			return nil
		})
		db.shared.drop()
		for i := 0; i < jobs; i++ {
			keys := family(i)
			// Any ascending selection of the family.
			var pick []string
			for _, k := range keys {
				if r.IntN(4) != 0 {
					pick = append(pick, k)
				}
			}
			db.Update(func(tx *Tx) error {
				tx.PrefetchMetas(pick...)
				for _, k := range keys {
					if got := tx.TypeOf(k); got != want[k] {
						t.Errorf("round %d: after prefetching %q, %s is %v, want %v", round, pick, k, got, want[k])
					}
				}
				return nil
			})
			db.View(func(tx *Tx) error {
				for _, k := range keys {
					if got := tx.TypeOf(k); got != want[k] {
						t.Errorf("round %d: next transaction after prefetching %q: %s is %v, want %v", round, pick, k, got, want[k])
					}
				}
				return nil
			})
		}
	}
}
