package store

// The random test's checks (zset_keyspace_random_test.go): every read a
// sorted set offers, against the model.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// zkVerifyAll compares every database with the model.
func zkVerifyAll(t *testing.T, db *DB, m *zkModel, r *rand.Rand, st *zkStats, where string) {
	t.Helper()
	err := db.View(func(tx *Tx) error {
		if err := zkVerifyCounts(tx, m); err != nil {
			return err
		}
		for d := range zkDBs {
			tx.Select(d)
			if err := zkVerifyDB(tx, m.dbs[d], r); err != nil {
				return fmt.Errorf("db %d: %w", d, err)
			}
			for _, k := range m.dbs[d] {
				if k.z != nil && zkLarge(k.z) {
					st.largeSeen++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
}

// zkVerifyCounts checks INFO keyspace's counts, which also shows that the
// databases the test leaves alone stayed empty.
func zkVerifyCounts(tx *Tx, m *zkModel) error {
	want := map[int][2]int{}
	for d, keys := range m.dbs {
		for _, k := range keys {
			c := want[d]
			c[0]++
			if k.exp != 0 {
				c[1]++
			}
			want[d] = c
		}
	}
	if got := tx.KeyCount(); !maps.Equal(got, want) {
		return fmt.Errorf("KeyCount %v, want %v", got, want)
	}
	return nil
}

// zkVerifyDB checks the selected database's key list, then every key in
// it and every pool key that should be absent.
func zkVerifyDB(tx *Tx, want map[string]*zkKey, r *rand.Rand) error {
	var got []string
	tx.ScanKeys("", func(key string, _ Type) bool { got = append(got, key); return true })
	names := slices.Sorted(maps.Keys(want))
	if err := zkDiffStrings("keys", got, names); err != nil {
		return err
	}
	if n := tx.DBSize(); n != len(want) {
		return fmt.Errorf("DBSize %d, want %d", n, len(want))
	}
	for _, key := range names {
		if err := zkVerifyKey(tx, key, want[key], r); err != nil {
			return err
		}
	}
	for _, key := range slices.Concat(zkMainKeys, zkWriterKeys) {
		if want[key] == nil {
			if err := zkVerifyKey(tx, key, nil, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// zkVerifyKey checks one key of the selected database against want (nil:
// absent).
func zkVerifyKey(tx *Tx, key string, want *zkKey, r *rand.Rand) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("key %q: %s", key, fmt.Sprintf(format, args...))
	}
	exp, ok := tx.ExpireAt(key)
	typ := tx.TypeOf(key)
	switch {
	case want == nil:
		if ok || typ != TypeNone {
			return fail("exists (type %q), want absent", typ)
		}
		return nil
	case !ok:
		return fail("absent, want %s", zkDescribe(want))
	case exp != want.exp:
		return fail("deadline %d, want %d", exp, want.exp)
	case want.isStr:
		if typ != TypeString {
			return fail("type %q, want a string", typ)
		}
		if v, _, err := tx.GetString(key); err != nil || v != want.str {
			return fail("GetString %q, %v; want %q", v, err, want.str)
		}
		if _, err := tx.OpenZSet(key); !errors.Is(err, ErrWrongType) {
			return fail("OpenZSet on a string: err %v, want ErrWrongType", err)
		}
		return nil
	}
	if typ != TypeZSet {
		return fail("type %q, want a sorted set", typ)
	}
	if _, _, err := tx.GetString(key); !errors.Is(err, ErrWrongType) {
		return fail("GetString on a sorted set: err %v, want ErrWrongType", err)
	}
	z, err := tx.OpenZSet(key)
	if err != nil {
		return fail("OpenZSet: %v", err)
	}
	defer z.Release()
	if err := zkVerifyZSet(z, want.z, r); err != nil {
		return fail("%v", err)
	}
	return nil
}

func zkDescribe(k *zkKey) string {
	if k.isStr {
		return fmt.Sprintf("string %q", k.str)
	}
	return fmt.Sprintf("sorted set of %d", len(k.z))
}

// zkVerifyZSet checks every read a command makes of a set: whole walks,
// lookups, ranks and bounded ranges.
func zkVerifyZSet(z *ZSet, want map[string]float64, r *rand.Rand) error {
	asc := zkSorted(want)
	if z.Len() != int64(len(asc)) {
		return fmt.Errorf("Len %d, want %d", z.Len(), len(asc))
	}
	if err := zkDiff("Ascend", zkCollect(z.Ascend), asc); err != nil {
		return err
	}
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	if err := zkDiff("Descend", zkCollect(z.Descend), desc); err != nil {
		return err
	}
	if err := zkVerifyMembers(z, asc, r); err != nil {
		return err
	}
	for _, e := range asc {
		if s, ok := z.Score(e.Member); !ok || math.Float64bits(s) != math.Float64bits(e.Score) {
			return fmt.Errorf("Score(%q) = %v, %v; want %v", e.Member, s, ok, e.Score)
		}
	}
	for _, mb := range []string{"absent", zkMember(r.IntN(zkWriterMemberPool)), zkMember(r.IntN(zkWriterMemberPool))} {
		if _, in := want[mb]; in {
			continue
		}
		if s, ok := z.Score(mb); ok {
			return fmt.Errorf("Score(%q) = %v of an absent member", mb, s)
		}
		if _, ok := z.Rank(mb, false); ok {
			return fmt.Errorf("Rank(%q) found an absent member", mb)
		}
	}
	if len(asc) == 0 {
		return nil
	}
	if err := zkVerifyRanks(z, asc, r); err != nil {
		return err
	}
	return zkVerifyScoreRanges(z, asc, r)
}

// zkVerifyMembers checks member order (ZSCAN's), whole and from a point
// with an early stop.
func zkVerifyMembers(z *ZSet, asc []Entry, r *rand.Rand) error {
	byMember := slices.SortedFunc(slices.Values(asc), func(a, b Entry) int { return strings.Compare(a.Member, b.Member) })
	if err := zkDiff(`Members("")`, zkCollect(func(fn func(Entry) bool) { z.Members("", fn) }), byMember); err != nil {
		return err
	}
	from := zkMember(r.IntN(zkWriterMemberPool))
	limit := 1 + r.IntN(5)
	var want []Entry
	for _, e := range byMember {
		if e.Member >= from && len(want) < limit {
			want = append(want, e)
		}
	}
	var got []Entry
	z.Members(from, func(e Entry) bool { got = append(got, e); return len(got) < limit })
	return zkDiff(fmt.Sprintf("Members(%q) first %d", from, limit), got, want)
}

func zkVerifyRanks(z *ZSet, asc []Entry, r *rand.Rand) error {
	n := len(asc)
	for _, i := range []int{0, n - 1, r.IntN(n), r.IntN(n)} {
		mb := asc[i].Member
		if got, ok := z.Rank(mb, false); !ok || got != int64(i) {
			return fmt.Errorf("Rank(%q) = %d, %v; want %d", mb, got, ok, i)
		}
		if got, ok := z.Rank(mb, true); !ok || got != int64(n-1-i) {
			return fmt.Errorf("reverse Rank(%q) = %d, %v; want %d", mb, got, ok, n-1-i)
		}
	}
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	for range 3 {
		start := r.IntN(n)
		stop := start + r.IntN(n-start)
		for _, rev := range []bool{false, true} {
			want := asc[start : stop+1]
			if rev {
				want = desc[start : stop+1]
			}
			got := zkCollect(func(fn func(Entry) bool) { z.RangeByRank(int64(start), int64(stop), rev, fn) })
			if err := zkDiff(fmt.Sprintf("RangeByRank(%d, %d, reverse=%v)", start, stop, rev), got, want); err != nil {
				return err
			}
		}
	}
	return nil
}

func zkVerifyScoreRanges(z *ZSet, asc []Entry, r *rand.Rand) error {
	bound := func() ScoreBound {
		return ScoreBound{Value: zkNorm(zkScores[r.IntN(len(zkScores))]), Excl: r.IntN(3) == 0}
	}
	for range 3 {
		lo, hi := bound(), bound()
		if r.IntN(4) != 0 && lo.Value > hi.Value {
			lo, hi = hi, lo
		}
		var want []Entry
		for _, e := range asc {
			above := e.Score > lo.Value || !lo.Excl && e.Score == lo.Value
			below := e.Score < hi.Value || !hi.Excl && e.Score == hi.Value
			if above && below {
				want = append(want, e)
			}
		}
		what := fmt.Sprintf("RangeByScore(%+v, %+v", lo, hi)
		if err := zkDiff(what+", false)", zkCollect(func(fn func(Entry) bool) { z.RangeByScore(lo, hi, false, fn) }), want); err != nil {
			return err
		}
		want = slices.Clone(want)
		slices.Reverse(want)
		if err := zkDiff(what+", true)", zkCollect(func(fn func(Entry) bool) { z.RangeByScore(lo, hi, true, fn) }), want); err != nil {
			return err
		}
		if c := z.CountByScore(lo, hi); c != int64(len(want)) {
			return fmt.Errorf("CountByScore(%+v, %+v) = %d, want %d", lo, hi, c, len(want))
		}
	}
	return nil
}

// zkNorm is the score the store keeps: -0 is stored as 0.
func zkNorm(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// zkSorted is Redis's order: by score, ties by member bytes.
func zkSorted(z map[string]float64) []Entry {
	out := make([]Entry, 0, len(z))
	for mb, s := range z {
		out = append(out, Entry{Member: mb, Score: s})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Member, b.Member)
	})
	return out
}

func zkSortedMembers(z map[string]float64) []string { return slices.Sorted(maps.Keys(z)) }

func zkCollect(walk func(func(Entry) bool)) []Entry {
	var out []Entry
	walk(func(e Entry) bool { out = append(out, e); return true })
	return out
}

// zkDiff reports the first difference between two entry lists, comparing
// scores bit for bit (so -0 against 0 shows).
func zkDiff(what string, got, want []Entry) error {
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.Member != w.Member || math.Float64bits(g.Score) != math.Float64bits(w.Score) {
			return fmt.Errorf("%s: entry %d is %q=%v, want %q=%v (%d entries, want %d)",
				what, i, g.Member, g.Score, w.Member, w.Score, len(got), len(want))
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d entries, want %d; first extra: %v", what, len(got), len(want), zkFirstExtra(got, want))
	}
	return nil
}

func zkFirstExtra(got, want []Entry) Entry {
	if len(got) > len(want) {
		return got[len(want)]
	}
	return want[len(got)]
}

func zkDiffStrings(what string, got, want []string) error {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Errorf("%s: %d is %q, want %q (got %q, want %q)", what, i, got[i], want[i], got, want)
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: got %q, want %q", what, got, want)
	}
	return nil
}
