package store

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRandomZSetKeyspaceOps drives sorted sets, small (inline) and large
// (past the inline limit), through random edits and every keyspace operation that
// moves, copies, replaces or drops a key wholesale (RENAME, COPY, MOVE,
// SWAPDB, FLUSHDB, FLUSHALL, EXPIRE, SET over a set), across several
// databases, and holds the store to an in-test model: inside the write
// transactions, after each round, after reopening the data file, and after
// rewrites of the data file, half of them racing a writer. Those are the
// paths where a set's members, its in-memory order and its journal records
// can part ways; the model is the only thing that knows the right answer
// independently of the layout.
func TestRandomZSetKeyspaceOps(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { zkRandomRun(t, seed) })
	}
}

func zkRandomRun(t *testing.T, seed uint64) {
	dir := t.TempDir()
	db := zkOpen(t, dir)
	defer func() { db.Close() }()
	m := newZKModel()
	st := &zkStats{}
	g := &zkGen{
		r: rand.New(rand.NewPCG(seed, 29)), m: m, st: st,
		keys: zkMainKeys, members: zkMemberPool, global: true, future: zkFuture(),
	}
	vr := rand.New(rand.NewPCG(seed, 7))
	const rounds, txPerRound = 12, 40
	for round := range rounds {
		for i := range txPerRound {
			steps := g.tx(1 + g.r.IntN(6))
			if err := zkApply(db, steps); err != nil {
				t.Fatalf("round %d tx %d: %v", round, i, err)
			}
		}
		switch round % 6 {
		case 2:
			st.maxMembersAtRewrite = max(st.maxMembersAtRewrite, m.members())
			if err := db.Save(); err != nil {
				t.Fatalf("round %d: save: %v", round, err)
			}
			st.saves++
		case 5:
			// The first racing writer keeps to its own keys, the second
			// takes every key and the database-wide steps.
			zkSaveDuringWrites(t, db, zkWriter(m, seed, round, round > 6), st)
		}
		where := fmt.Sprintf("round %d", round)
		zkVerifyAll(t, db, m, vr, st, where)
		if err := db.Close(); err != nil {
			t.Fatalf("%s: close: %v", where, err)
		}
		db = zkOpen(t, dir)
		zkVerifyAll(t, db, m, vr, st, where+", after reopen")
	}
	t.Logf("%+v", *st)
	// A run that never grew a set past the inline limit, or never moved
	// one, would pass without testing the layout it is here for.
	if st.largeSeen == 0 || st.largeMoved == 0 || st.largeCopied == 0 || st.saves == 0 {
		t.Fatalf("the run missed what it is meant to cover: %+v", *st)
	}
}

const zkDBs = 4

// Keys that are byte prefixes of one another ("", "a", "ab", "abc") and
// binary ones check that one key's members never leak into another's range.
var (
	zkMainKeys   = []string{"", "a", "ab", "abc", "b", "k1", "k2", "k3", "k4", "z\x00", "z\xff", "zz"}
	zkWriterKeys = []string{"w1", "w2", "w3", "w4", "w5", "w6"}
)

// zkScores repeats values so that ties, ordered by member bytes, are
// common; -0 must read back as 0.
var zkScores = []float64{
	math.Inf(-1), -1e300, -2.5, -1, math.Copysign(0, -1), 0, 0, 0.5, 1, 1, 1, 2, 3, 3, 7, 1e300, math.Inf(1),
}

// zkMember names are 10-20 bytes, so that 20-odd members pass the inline
// limit; two odd ones (empty, binary) sort first.
func zkMember(i int) string {
	switch i {
	case 0:
		return ""
	case 1:
		return "m\x00\xff"
	}
	return fmt.Sprintf("member%03d-%s", i, strings.Repeat(string(rune('a'+i%26)), i%11))
}

// zkMemberPool is how many member names the main steps use; the writer
// racing a rewrite uses more, so that a rewrite spans several of its
// chunks (rewriteChunk items) and writes land between them.
const (
	zkMemberPool       = 170
	zkWriterMemberPool = 700
)

// zkLarge tells whether a set is surely past the inline limit, zkSmall
// whether it surely fits: each member costs its 8-byte score and a length
// byte or two besides its bytes.
func zkLarge(z map[string]float64) bool { return zkBytes(z) > zkInlineLimit+64 }
func zkSmall(z map[string]float64) bool { return zkBytes(z) < zkInlineLimit-64 }

// zkInlineLimit is zInlineMaxBytes, spelled out so that this test keeps
// compiling whatever the layout's names become.
const zkInlineLimit = 512

func zkBytes(z map[string]float64) int {
	n := 0
	for mb := range z {
		n += 9 + len(mb)
	}
	return n
}

func zkFuture() int64 { return time.Now().Add(time.Hour).UnixMilli() }

func zkOpen(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(Options{Dir: dir, Sync: SyncEverySec})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// zkKey is one key of the model: a string or a sorted set, with its
// deadline (0 for none).
type zkKey struct {
	isStr bool
	str   string
	z     map[string]float64
	exp   int64
}

func (k *zkKey) clone() *zkKey {
	if k == nil {
		return nil
	}
	c := *k
	c.z = maps.Clone(k.z)
	return &c
}

type zkModel struct {
	dbs [zkDBs]map[string]*zkKey
}

func newZKModel() *zkModel {
	m := &zkModel{}
	for d := range m.dbs {
		m.dbs[d] = map[string]*zkKey{}
	}
	return m
}

// zkStats shows what a run reached, so that a change of weights cannot
// quietly stop covering large sets or rewrites.
// members counts the model's set members, roughly the items a rewrite
// copies.
func (m *zkModel) members() int {
	n := 0
	for _, keys := range m.dbs {
		for _, k := range keys {
			n += len(k.z)
		}
	}
	return n
}

type zkStats struct {
	steps, concurrentTxs, txsDuringRewrite      int
	largeSeen, largeShrunk, largeOverwritten    int
	largeMoved, largeCopied                     int
	saves, concurrentSaves, maxMembersAtRewrite int
}

// zkStep is one operation, its expected outcome fixed when it was
// generated: the model has moved on by the time it runs.
type zkStep struct {
	desc string
	run  func(tx *Tx) error
}

func zkApply(db *DB, steps []zkStep) error {
	return db.Update(func(tx *Tx) error {
		for i, s := range steps {
			if err := s.run(tx); err != nil {
				var all []string
				for _, s := range steps {
					all = append(all, s.desc)
				}
				return fmt.Errorf("step %d (%s) of [%s]: %w", i, s.desc, strings.Join(all, "; "), err)
			}
		}
		return nil
	})
}

// zkGen makes random steps over its key pool and applies each to the model
// as it makes it. global allows the steps that touch every key of a
// database (SWAPDB, FLUSHDB, FLUSHALL), which a writer racing a rewrite
// must not take, so that its keys stay its own.
type zkGen struct {
	r       *rand.Rand
	m       *zkModel
	st      *zkStats
	keys    []string
	members int // member names drawn from: zkMember(0..members-1)
	global  bool
	future  int64
}

func (g *zkGen) tx(n int) []zkStep {
	var steps []zkStep
	for range n {
		steps = append(steps, g.step())
		g.st.steps++
	}
	return steps
}

func (g *zkGen) step() zkStep {
	w := g.r.IntN(100)
	switch {
	case w < 38:
		return g.zsetEdit()
	case w < 45:
		return g.setString()
	case w < 49:
		return g.del()
	case w < 59:
		return g.rename()
	case w < 67:
		return g.copy()
	case w < 72:
		return g.move()
	case w < 80:
		return g.expire()
	case w < 88:
		return g.check()
	case w < 91:
		return zkStep{"tick", func(tx *Tx) error { tx.Tick(); return nil }}
	case !g.global:
		return g.zsetEdit()
	case w < 96:
		return g.swapDB()
	case w < 99:
		return g.flushDB()
	}
	return g.flushAll()
}

// pick chooses a key, mostly one that exists, so that operations meet
// sets and strings more often than absent keys.
func (g *zkGen) pick() (int, string) {
	d := g.r.IntN(zkDBs)
	if live := g.existing(d); len(live) > 0 && g.r.IntN(10) < 7 {
		return d, live[g.r.IntN(len(live))]
	}
	return d, g.keys[g.r.IntN(len(g.keys))]
}

// existing lists the pool's live keys of database d in a fixed order, for
// determinism.
func (g *zkGen) existing(d int) []string {
	var out []string
	for _, k := range g.keys {
		if g.m.dbs[d][k] != nil {
			out = append(out, k)
		}
	}
	return out
}

// target chooses where a key goes: as often an existing key of either type
// (to be replaced) as any key of the pool.
func (g *zkGen) target(d int) string {
	if live := g.existing(d); len(live) > 0 && g.r.IntN(2) == 0 {
		return live[g.r.IntN(len(live))]
	}
	return g.keys[g.r.IntN(len(g.keys))]
}

func (g *zkGen) member() string { return zkMember(g.r.IntN(g.members)) }

func (g *zkGen) score() float64 {
	if g.r.IntN(8) == 0 {
		return math.Round(g.r.NormFloat64()*1000) / 8
	}
	return zkScores[g.r.IntN(len(zkScores))]
}

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

// zkWriter makes the generator of the writer that races rewrites. The
// model stays right whatever the interleaving because this writer is then
// the only one, and its steps update the model as they are made. Kept to
// its own keys it checks sets that change between a rewrite's chunks;
// given every key and the database-wide steps, sets that are renamed,
// swapped or flushed between them.
func zkWriter(m *zkModel, seed uint64, round int, everything bool) *zkGen {
	g := &zkGen{
		r: rand.New(rand.NewPCG(seed, 97+uint64(round))), m: m, st: &zkStats{},
		keys: zkWriterKeys, members: zkWriterMemberPool, future: zkFuture(),
	}
	if everything {
		g.keys, g.global = slices.Concat(zkMainKeys, zkWriterKeys), true
	}
	return g
}

// zkSaveDuringWrites rewrites the data file again and again while g's
// writer runs, then folds the writer's statistics into st.
func zkSaveDuringWrites(t *testing.T, db *DB, g *zkGen, st *zkStats) {
	t.Helper()
	const txs = 400
	done := make(chan error, 1)
	var saving atomic.Bool
	overlapped := 0
	go func() {
		for i := range txs {
			steps := g.tx(1 + g.r.IntN(4))
			// A ballast set now and then, as database-wide steps may
			// have dropped the last one.
			if i%100 == 0 {
				steps = append(steps, g.ballast())
			}
			if saving.Load() {
				overlapped++
			}
			if err := zkApply(db, steps); err != nil {
				done <- fmt.Errorf("writer tx %d: %v", i, err)
				return
			}
		}
		done <- nil
	}()
	for running := true; running; {
		saving.Store(true)
		err := db.Save()
		saving.Store(false)
		if err != nil {
			t.Fatalf("save beside the writer: %v", err)
		}
		st.concurrentSaves++
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
	}
	wst := g.st
	st.saves++
	st.concurrentTxs += txs
	st.txsDuringRewrite += overlapped
	st.maxMembersAtRewrite = max(st.maxMembersAtRewrite, g.m.members())
	st.steps += wst.steps
	st.largeMoved += wst.largeMoved
	st.largeCopied += wst.largeCopied
	st.largeOverwritten += wst.largeOverwritten
	st.largeShrunk += wst.largeShrunk
}

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
