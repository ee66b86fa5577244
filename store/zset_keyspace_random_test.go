package store

import (
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
	t.Parallel()
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
