package store

// The random test's operations (zset_keyspace_random_test.go): each makes
// one step and, as it is made, applies it to the model.

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
)

// zkEdit is one write to an open set with what it must report.
type zkEdit struct {
	member string
	score  float64
	remove bool
	want   bool
}

func (g *zkGen) zsetEdit() zkStep {
	d, key := g.pick()
	k := g.m.dbs[d][key]
	if k != nil && k.isStr {
		desc := fmt.Sprintf("zadd db%d %q over a string", d, key)
		return zkStep{desc, func(tx *Tx) error {
			tx.Select(d)
			if _, err := tx.OpenZSet(key); !errors.Is(err, ErrWrongType) {
				return fmt.Errorf("OpenZSet on a string: err %v, want ErrWrongType", err)
			}
			return nil
		}}
	}
	cur := map[string]float64{}
	if k != nil {
		cur = maps.Clone(k.z)
	}
	var edits []zkEdit
	put := func(mb string, s float64) {
		_, had := cur[mb]
		cur[mb] = zkNorm(s)
		edits = append(edits, zkEdit{member: mb, score: s, want: !had})
	}
	remove := func(mb string) {
		_, had := cur[mb]
		delete(cur, mb)
		edits = append(edits, zkEdit{member: mb, remove: true, want: had})
	}
	var pops []Entry
	mode := g.r.IntN(10)
	var kind string
	switch {
	case mode < 3:
		kind = "grow"
		for range 20 + g.r.IntN(41) {
			put(g.member(), g.score())
		}
	case mode < 4:
		kind = "shrink"
		members := zkSortedMembers(cur)
		frac := 0.5 + g.r.Float64()/2
		if g.r.IntN(3) == 0 {
			frac = 1
		}
		for _, mb := range members {
			if g.r.Float64() < frac {
				remove(mb)
			}
		}
	case mode < 5:
		kind = "rescore"
		for _, mb := range zkSortedMembers(cur) {
			if g.r.IntN(2) == 0 {
				put(mb, g.score())
			}
		}
	case mode < 6 && len(cur) > 0:
		kind = "popmin"
		pops = zkSorted(cur)[:1+g.r.IntN(min(len(cur), 12))]
		for _, e := range pops {
			delete(cur, e.Member)
		}
	default:
		kind = "churn"
		members := zkSortedMembers(cur)
		for range 1 + g.r.IntN(12) {
			switch w := g.r.IntN(10); {
			case w < 4 && len(members) > 0:
				put(members[g.r.IntN(len(members))], g.score())
			case w < 6 && len(members) > 0:
				remove(members[g.r.IntN(len(members))])
			case w < 7:
				remove(g.member())
			default:
				put(g.member(), g.score())
			}
		}
	}
	if k != nil && zkLarge(k.z) && len(cur) > 0 && zkSmall(cur) {
		g.st.largeShrunk++
	}
	if len(cur) == 0 {
		delete(g.m.dbs[d], key)
	} else {
		if k == nil {
			k = &zkKey{}
			g.m.dbs[d][key] = k
		}
		k.z = cur
	}
	want := maps.Clone(cur)
	desc := fmt.Sprintf("zset %s db%d %q (%d edits, %d pops) -> %d members", kind, d, key, len(edits), len(pops), len(want))
	return zkStep{desc, func(tx *Tx) error {
		tx.Select(d)
		z, err := tx.OpenZSet(key)
		if err != nil {
			return err
		}
		defer z.Release()
		for i, e := range edits {
			var got bool
			if e.remove {
				got = z.Remove(e.member)
			} else {
				got = z.Put(e.member, e.score)
			}
			if got != e.want {
				return fmt.Errorf("edit %d %+v reported %v", i, e, got)
			}
		}
		if err := zkPopMin(z, pops); err != nil {
			return err
		}
		if z.Len() != int64(len(want)) {
			return fmt.Errorf("Len %d before Flush, want %d", z.Len(), len(want))
		}
		z.Flush()
		z.Flush()
		if z.Exists() != (len(want) > 0) {
			return fmt.Errorf("Exists %v after Flush with %d members", z.Exists(), len(want))
		}
		return nil
	}}
}

// zkPopMin removes the lowest entries as ZPOPMIN does: read by rank, then
// removed by entry.
func zkPopMin(z *ZSet, want []Entry) error {
	if len(want) == 0 {
		return nil
	}
	var got []Entry
	z.RangeByRank(0, int64(len(want))-1, false, func(e Entry) bool { got = append(got, e); return true })
	if err := zkDiff("popped", got, want); err != nil {
		return err
	}
	for _, e := range got {
		z.RemoveEntry(e)
	}
	return nil
}

func (g *zkGen) setString() zkStep {
	d, key := g.pick()
	val := fmt.Sprintf("v%d", g.r.IntN(1000))
	old := g.m.dbs[d][key]
	var exp int64
	keep := false
	switch g.r.IntN(4) {
	case 0:
		exp = g.future + int64(g.r.IntN(100000))
	case 1:
		keep = true
	}
	if old != nil && old.z != nil && zkLarge(old.z) {
		g.st.largeOverwritten++
	}
	nk := &zkKey{isStr: true, str: val, exp: exp}
	if keep {
		nk.exp = 0
		if old != nil {
			nk.exp = old.exp
		}
	}
	g.m.dbs[d][key] = nk
	desc := fmt.Sprintf("set db%d %q %q exp=%d keepttl=%v", d, key, val, exp, keep)
	return zkStep{desc, func(tx *Tx) error {
		tx.Select(d)
		tx.SetString(key, val, exp, keep)
		return nil
	}}
}

func (g *zkGen) del() zkStep {
	d, key := g.pick()
	want := g.m.dbs[d][key] != nil
	delete(g.m.dbs[d], key)
	return zkStep{fmt.Sprintf("del db%d %q", d, key), func(tx *Tx) error {
		tx.Select(d)
		if got := tx.Delete(key); got != want {
			return fmt.Errorf("Delete reported %v, want %v", got, want)
		}
		return nil
	}}
}

// rename aims at an absent key, an existing key of either type, or src
// itself.
func (g *zkGen) rename() zkStep {
	d, src := g.pick()
	dst := g.target(d)
	if g.r.IntN(10) == 0 {
		dst = src
	}
	keys := g.m.dbs[d]
	k := keys[src]
	want := k != nil
	if want && src != dst {
		if k.z != nil && zkLarge(k.z) {
			g.st.largeMoved++
		}
		keys[dst] = k
		delete(keys, src)
	}
	return zkStep{fmt.Sprintf("rename db%d %q %q", d, src, dst), func(tx *Tx) error {
		tx.Select(d)
		if got := tx.Rename(src, dst); got != want {
			return fmt.Errorf("Rename reported %v, want %v", got, want)
		}
		return nil
	}}
}

// copy copies within a database (to another key: COPY refuses the same
// one) or to another, with or without REPLACE.
func (g *zkGen) copy() zkStep {
	d, src := g.pick()
	dstDB := d
	if g.r.IntN(2) == 0 {
		dstDB = g.r.IntN(zkDBs)
	}
	dst := src
	if dstDB == d || g.r.IntN(2) == 0 {
		for dst = g.target(dstDB); dstDB == d && dst == src; {
			dst = g.target(dstDB)
		}
	}
	replace := g.r.IntN(2) == 0
	k := g.m.dbs[d][src]
	want := k != nil && (g.m.dbs[dstDB][dst] == nil || replace)
	if want {
		if k.z != nil && zkLarge(k.z) {
			g.st.largeCopied++
		}
		g.m.dbs[dstDB][dst] = k.clone()
	}
	desc := fmt.Sprintf("copy db%d %q db%d %q replace=%v", d, src, dstDB, dst, replace)
	return zkStep{desc, func(tx *Tx) error {
		tx.Select(d)
		if got := tx.Copy(src, dstDB, dst, replace); got != want {
			return fmt.Errorf("Copy reported %v, want %v", got, want)
		}
		if tx.Selected() != d {
			return fmt.Errorf("Copy left database %d selected", tx.Selected())
		}
		return nil
	}}
}

// move is MOVE as the command does it: a copy that refuses to replace,
// then a delete.
func (g *zkGen) move() zkStep {
	d, key := g.pick()
	dstDB := (d + 1 + g.r.IntN(zkDBs-1)) % zkDBs
	k := g.m.dbs[d][key]
	want := k != nil && g.m.dbs[dstDB][key] == nil
	if want {
		if k.z != nil && zkLarge(k.z) {
			g.st.largeMoved++
		}
		g.m.dbs[dstDB][key] = k
		delete(g.m.dbs[d], key)
	}
	return zkStep{fmt.Sprintf("move db%d %q db%d", d, key, dstDB), func(tx *Tx) error {
		tx.Select(d)
		got := tx.Copy(key, dstDB, key, false)
		if got {
			tx.Delete(key)
		}
		if got != want {
			return fmt.Errorf("MOVE's Copy reported %v, want %v", got, want)
		}
		return nil
	}}
}

// expire sets a past deadline (a delete), a future one, or none.
func (g *zkGen) expire() zkStep {
	d, key := g.pick()
	k := g.m.dbs[d][key]
	want := k != nil
	mode := g.r.IntN(3)
	var at int64
	switch mode {
	case 0:
		delete(g.m.dbs[d], key)
	case 1:
		at = g.future + int64(g.r.IntN(100000))
		if k != nil {
			k.exp = at
		}
	case 2:
		if k != nil {
			k.exp = 0
		}
	}
	desc := fmt.Sprintf("expireat db%d %q mode=%d at=%d", d, key, mode, at)
	return zkStep{desc, func(tx *Tx) error {
		tx.Select(d)
		at := at
		if mode == 0 {
			at = tx.Now() - 1000
		}
		if got := tx.SetExpireAt(key, at); got != want {
			return fmt.Errorf("SetExpireAt reported %v, want %v", got, want)
		}
		return nil
	}}
}

// check reads a key inside the write transaction, which must see the
// transaction's own writes (a set's order changed, moved or copied before
// the commit).
func (g *zkGen) check() zkStep {
	d, key := g.pick()
	want := g.m.dbs[d][key].clone()
	seed := g.r.Uint64()
	return zkStep{fmt.Sprintf("check db%d %q", d, key), func(tx *Tx) error {
		tx.Select(d)
		return zkVerifyKey(tx, key, want, rand.New(rand.NewPCG(seed, 1)))
	}}
}

// ballast makes the rewrite racing the writer span several chunks, so that
// the writer's transactions land between them: a set of
// zkBallastMembers that no step picks (only database-wide steps reach it).
func (g *zkGen) ballast() zkStep {
	d := g.r.IntN(zkDBs)
	want := map[string]float64{}
	for i := range zkBallastMembers {
		want[zkMember(i)] = zkNorm(g.score())
	}
	g.m.dbs[d][zkBallastKey] = &zkKey{z: maps.Clone(want)}
	return zkStep{fmt.Sprintf("ballast db%d", d), func(tx *Tx) error {
		tx.Select(d)
		tx.Delete(zkBallastKey)
		z, err := tx.OpenZSet(zkBallastKey)
		if err != nil {
			return err
		}
		defer z.Release()
		for _, e := range zkSorted(want) {
			z.Put(e.Member, e.Score)
		}
		z.Flush()
		return nil
	}}
}

// zkBallastMembers is twice rewriteChunk (1024 items), spelled out for the
// same reason as zkInlineLimit.
const (
	zkBallastKey     = "ballast"
	zkBallastMembers = 2048
)

func (g *zkGen) swapDB() zkStep {
	a, b := g.r.IntN(zkDBs), g.r.IntN(zkDBs)
	g.m.dbs[a], g.m.dbs[b] = g.m.dbs[b], g.m.dbs[a]
	return zkStep{fmt.Sprintf("swapdb %d %d", a, b), func(tx *Tx) error {
		tx.SwapDB(a, b)
		return nil
	}}
}

// flushDB flushes one database, or every one in turn so that the last
// flush finds no other database with keys (FlushDB's FLUSHALL shortcut).
func (g *zkGen) flushDB() zkStep {
	order := []int{g.r.IntN(zkDBs)}
	if g.r.IntN(3) == 0 {
		order = g.r.Perm(zkDBs)
	}
	for _, d := range order {
		g.m.dbs[d] = map[string]*zkKey{}
	}
	return zkStep{fmt.Sprintf("flushdb %v", order), func(tx *Tx) error {
		for _, d := range order {
			tx.Select(d)
			tx.FlushDB()
		}
		return nil
	}}
}

func (g *zkGen) flushAll() zkStep {
	for d := range g.m.dbs {
		g.m.dbs[d] = map[string]*zkKey{}
	}
	return zkStep{"flushall", func(tx *Tx) error {
		tx.FlushAll()
		return nil
	}}
}
