package qless

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// diffEnv is the little of the server qless reaches.
type diffEnv struct {
	commands.Env
	db *store.DB
	// listening: someone subscribes to every channel, so that the fast
	// path publishes all the Lua does, for the diff to compare. The
	// benchmarks' env has no one, as on a server without subscribers.
	listening bool
}

func (e *diffEnv) Store() *store.DB { return e.db }

func (e *diffEnv) CountSubscribers(string) int64 {
	if e.listening {
		return 1
	}
	return 0
}

type diffSess struct{ db int }

func (s *diffSess) ID() int64   { return 1 }
func (s *diffSess) DB() int     { return s.db }
func (s *diffSess) SetDB(i int) { s.db = i }

// diffSide is one in-process qless: a store, the command table with QLESS,
// and whether its QLESS calls may take the fast paths.
type diffSide struct {
	db     *store.DB
	table  *commands.Table
	engine *scripts.Engine
	env    *diffEnv
	sess   diffSess
	fast   bool
	// standIn counts the calls of a stand-in client build (profiles_test.go)
	standIn *scripts.AliasStats
}

func newDiffSide(t testing.TB, fast bool) *diffSide {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	table := commands.Default()
	e := scripts.NewEngine(scripts.Options{})
	commands.RegisterScripting(table, e)
	if err := Register(table, e, Options{}); err != nil {
		t.Fatal(err)
	}
	return &diffSide{db: db, table: table, engine: e, env: &diffEnv{db: db, listening: true}, fast: fast}
}

// do runs one command in its own write transaction and returns its reply
// and what it published.
func (s *diffSide) do(t testing.TB, args ...string) (resp.Value, []commands.Message) {
	t.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	cmd := s.table.Lookup(argv[0])
	if cmd == nil {
		t.Fatalf("no command %q", args[0])
	}
	fastOff.Store(!s.fast)
	defer fastOff.Store(false)
	var rec resp.Recorder
	ctx := &commands.Ctx{Sess: &s.sess, Env: s.env, Table: s.table, W: &rec}
	var published []commands.Message
	if err := s.db.Update(func(tx *store.Tx) error {
		tx.Tick()
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, argv)
		published = ctx.TakePublished()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !rec.Written() {
		t.Fatalf("%q wrote no reply", args)
	}
	return rec.Value(), published
}

// dump is the whole keyspace as text, one line per key, sorted.
func (s *diffSide) dump(t testing.TB) string {
	t.Helper()
	keys, _ := s.do(t, "keys", "*")
	var lines []string
	for _, k := range keys.Array {
		typ, _ := s.do(t, "type", k.Str)
		var v resp.Value
		switch typ.Str {
		case "hash":
			// In stored order: HGETALL shows clients the order the
			// writes made.
			v, _ = s.do(t, "hgetall", k.Str)
		case "list":
			v, _ = s.do(t, "lrange", k.Str, "0", "-1")
		case "set":
			v, _ = s.do(t, "smembers", k.Str)
			sort.Slice(v.Array, func(i, j int) bool { return v.Array[i].Str < v.Array[j].Str })
		case "zset":
			v, _ = s.do(t, "zrange", k.Str, "0", "-1", "withscores")
		case "string":
			v, _ = s.do(t, "get", k.Str)
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", k.Str, typ.Str, valueText(v)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func valueText(v resp.Value) string {
	switch v.Kind {
	case resp.Array:
		parts := make([]string, len(v.Array))
		for i, e := range v.Array {
			parts[i] = valueText(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case resp.Int:
		return strconv.FormatInt(v.Int, 10)
	case resp.Null, resp.NullArray:
		return "nil"
	case resp.Error:
		return "ERR(" + v.Str + ")"
	}
	return strconv.Quote(v.Str)
}

// diffRun drives two sides with the same random qless calls.
type diffRun struct {
	t          *testing.T
	rng        *rand.Rand
	fast, slow *diffSide
	now        float64
	jids       []string
	steps      int
	// running holds jobs a pop handed out: jid -> worker and queue, so
	// most heartbeats and completions are ones that succeed.
	running map[string][2]string
	// fastVia, when set, replaces "qless" on the fast side's command line
	// (EVALSHA of the printed script, say).
	fastVia []string
}

func (r *diffRun) call(args ...string) {
	r.t.Helper()
	r.steps++
	full := append([]string{"qless"}, args...)
	via := full
	if r.fastVia != nil {
		via = append(append([]string{}, r.fastVia...), args...)
	}
	before := JobCounts()
	got, gotPub := r.fast.do(r.t, via...)
	mid := JobCounts()
	want, wantPub := r.slow.do(r.t, full...)
	if a, b := countsDelta(before, mid), countsDelta(mid, JobCounts()); !reflect.DeepEqual(a, b) {
		r.t.Fatalf("step %d %q: jobs counted\nfast: %v\nlua:  %v", r.steps, args, a, b)
	}
	if r.fastVia != nil && got.Kind == resp.Error && want.Kind == resp.Error &&
		strings.HasPrefix(got.Str, want.Str+" script: ") {
		// A script's error names the script and line; QLESS's does not.
		got = want
	}
	if !reflect.DeepEqual(got, want) {
		r.t.Fatalf("step %d %q:\nfast: %s\nlua:  %s", r.steps, args, valueText(got), valueText(want))
	}
	if !reflect.DeepEqual(gotPub, wantPub) {
		r.t.Fatalf("step %d %q: published\nfast: %v\nlua:  %v", r.steps, args, gotPub, wantPub)
	}
	if args[0] == "pop" && got.Kind == resp.Bulk && strings.HasPrefix(got.Str, "[") {
		var jobs []struct{ Jid, Worker, Queue string }
		if err := json.Unmarshal([]byte(got.Str), &jobs); err != nil {
			r.t.Fatalf("pop reply %s: %v", got.Str, err)
		}
		for _, j := range jobs {
			r.running[j.Jid] = [2]string{j.Worker, j.Queue}
		}
	}
}

// countsDelta is what was counted between two JobCounts, by queue and
// event, the zeros left out.
func countsDelta(before, after []QueueJobCounts) map[string]uint64 {
	was := map[string]uint64{}
	for _, q := range before {
		for e, n := range q.Counts {
			was[q.Queue+" "+JobEvent(e).String()] = n
		}
	}
	out := map[string]uint64{}
	for _, q := range after {
		for e, n := range q.Counts {
			k := q.Queue + " " + JobEvent(e).String()
			if d := n - was[k]; d != 0 {
				out[k] = d
			}
		}
	}
	return out
}

// runningJob picks a job some pop handed out, with its worker and queue.
func (r *diffRun) runningJob() (jid, worker, queue string, ok bool) {
	if len(r.running) == 0 || r.rng.Intn(4) == 0 {
		return "", "", "", false
	}
	keys := make([]string, 0, len(r.running))
	for k := range r.running {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	jid = keys[r.rng.Intn(len(keys))]
	wq := r.running[jid]
	if r.rng.Intn(3) == 0 {
		delete(r.running, jid)
	}
	return jid, wq[0], wq[1], true
}

func (r *diffRun) pick(xs ...string) string { return xs[r.rng.Intn(len(xs))] }

func (r *diffRun) nowArg() string {
	// Mostly small steps, now and then past heartbeats and grace periods.
	switch r.rng.Intn(10) {
	case 0:
		r.now += float64(r.rng.Intn(200))
	case 1:
		r.now += r.rng.Float64() * 5
	default:
		r.now += float64(r.rng.Intn(1000)) / 1000
	}
	if r.rng.Intn(4) == 0 {
		return strconv.FormatFloat(r.now, 'f', 6, 64)
	}
	return strconv.FormatFloat(r.now, 'f', -1, 64)
}

var (
	diffQueues  = []string{"q1", "q2", "q/3"}
	diffWorkers = []string{"w1", "w2", "w\"3"}
	diffData    = []string{`{}`, `{"a":1}`, `{"t":1763790000000000000,"pad":"xx/yy"}`, `[1,2,{"b":null}]`, `{"a":[],"b":{}}`, `{"x":"\u00e9"}`, `not json`, `false`}
)

func (r *diffRun) jid() string {
	if len(r.jids) == 0 || r.rng.Intn(4) == 0 {
		j := "j" + strconv.Itoa(len(r.jids))
		r.jids = append(r.jids, j)
		return j
	}
	return r.jids[r.rng.Intn(len(r.jids))]
}

func (r *diffRun) step() {
	q, w := r.pick(diffQueues...), r.pick(diffWorkers...)
	switch n := r.rng.Intn(101); {
	case n < 25:
		args := []string{"put", r.nowArg(), w, q, r.jid(), "K", r.pick(diffData...), r.pick("0", "0", "0", "5", "x")}
		for r.rng.Intn(3) == 0 {
			switch r.rng.Intn(5) {
			case 0:
				args = append(args, "priority", r.pick("0", "5", "-1", "x", "1.5"))
			case 1:
				args = append(args, "retries", r.pick("0", "1", "3", "x"))
			case 2:
				args = append(args, "tags", r.pick(`["a"]`, `["a","b"]`, `[]`, `{}`, `x`,
					`["a","a"]`, `["a/b","c"]`, `["a", "b"]`, `[1]`, `["é"]`))
			case 3:
				args = append(args, "depends", `["`+r.jid()+`"]`)
			case 4:
				args = append(args, "other", "v")
			}
		}
		r.call(args...)
	case n < 45:
		r.call("pop", r.nowArg(), q, w, r.pick("1", "1", "2", "3", "5", "10", "0", "x"))
	case n < 60:
		jid := r.jid()
		if j, jw, jq, ok := r.runningJob(); ok {
			jid, w, q = j, jw, jq
		}
		args := []string{"complete", r.nowArg(), jid, w, q, r.pick(diffData...)}
		if r.rng.Intn(5) == 0 {
			args = append(args, "next", r.pick(diffQueues...))
			if r.rng.Intn(2) == 0 {
				args = append(args, "delay", r.pick("0", "10"))
			}
		}
		r.call(args...)
	case n < 75:
		jid := r.jid()
		if j, jw, _, ok := r.runningJob(); ok {
			jid, w = j, jw
		}
		args := []string{"heartbeat", r.nowArg(), jid, w}
		if r.rng.Intn(3) > 0 {
			args = append(args, r.pick(diffData...))
		}
		r.call(args...)
	case n < 80:
		r.call("fail", r.nowArg(), r.jid(), w, "grp", "msg", r.pick(diffData...))
	case n < 84:
		r.call("retry", r.nowArg(), r.jid(), q, w, r.pick("0", "5"))
	case n < 88:
		opt := r.pick("heartbeat", q+"-heartbeat", "max-job-history", "grace-period", "jobs-history-count",
			q+"-max-concurrency", "jobs-history")
		if r.rng.Intn(4) == 0 {
			r.call("config.unset", r.nowArg(), opt)
		} else {
			r.call("config.set", r.nowArg(), opt, r.pick("1", "3", "4", "10", "60", "0", "2.5", "x"))
		}
	case n < 91:
		r.call("track", r.nowArg(), r.pick("track", "untrack"), r.jid())
	case n < 93:
		r.call("cancel", r.nowArg(), r.jid())
	case n < 95:
		r.call("pause", r.nowArg(), q)
	case n < 97:
		r.call("unpause", r.nowArg(), q)
	case n < 98:
		// A burst: several fresh jobs, then one pop for most of them.
		k := 2 + r.rng.Intn(6)
		for i := 0; i < k; i++ {
			r.call("put", r.nowArg(), w, q, r.jid(), "K", r.pick(diffData[:4]...), "0")
		}
		r.call("pop", r.nowArg(), q, w, strconv.Itoa(k-r.rng.Intn(2)))
	default:
		r.call("get", r.nowArg(), r.jid())
	}
}

// TestFastPathsMatchLua runs random qless calls through the fast paths on
// one store and through the Lua library alone on another: every reply, every
// published event and, after each run, the whole keyspace must be the same.
func TestFastPathsMatchLua(t *testing.T) {
	runs := 30
	if testing.Short() {
		runs = 5
	}
	taken := diffRuns(t, runs, 400, (*diffRun).step, nil)
	t.Logf("fast-path calls taken: %v", taken)
	for fn := range fastPaths {
		if taken[fn] == 0 {
			t.Errorf("no %s call took its fast path", fn)
		}
	}
}

// diffRuns runs seeds 1 to runs of steps calls each (step picks a call),
// fails at the first run whose keyspaces differ, hands each run's keyspace
// to seen (when given), and returns the fast paths taken.
func diffRuns(t *testing.T, runs, steps int, step func(*diffRun), seen func(keyspace string)) map[string]int {
	taken := map[string]int{}
	fastTaken = func(fn string) { taken[fn]++ }
	defer func() { fastTaken = nil }()
	for seed := 1; seed <= runs; seed++ {
		r := &diffRun{t: t, rng: rand.New(rand.NewSource(int64(seed))),
			fast: newDiffSide(t, true), slow: newDiffSide(t, false), now: 1763790000,
			running: map[string][2]string{}}
		for i := 0; i < steps; i++ {
			step(r)
		}
		a, b := r.fast.dump(t), r.slow.dump(t)
		if a != b {
			t.Fatalf("seed %d: keyspaces differ\nfast:\n%s\nlua:\n%s", seed, a, b)
		}
		if seen != nil {
			seen(a)
		}
	}
	return taken
}

// directedRun is a diffRun for a scripted sequence: calls at times it
// advances (at), the fast paths taken counted (until the test ends), and
// the keyspaces compared at the end by check.
type directedRun struct {
	*diffRun
	taken map[string]int
}

func newDirectedRun(t *testing.T, seed int64, fastVia ...string) *directedRun {
	r := &directedRun{diffRun: &diffRun{t: t, rng: rand.New(rand.NewSource(seed)), fast: newDiffSide(t, true),
		slow: newDiffSide(t, false), now: 1763790000, running: map[string][2]string{}, fastVia: fastVia},
		taken: map[string]int{}}
	fastTaken = func(fn string) { r.taken[fn]++ }
	t.Cleanup(func() { fastTaken = nil })
	return r
}

func (r *directedRun) at(d float64) string {
	r.now += d
	return strconv.FormatFloat(r.now, 'f', 6, 64)
}

// check compares the keyspaces and that each fast path was taken at least
// as often as want says.
func (r *directedRun) check(want map[string]int) {
	r.t.Helper()
	if a, b := r.fast.dump(r.t), r.slow.dump(r.t); a != b {
		r.t.Fatalf("keyspaces differ\nfast:\n%s\nlua:\n%s", a, b)
	}
	for fn, n := range want {
		if r.taken[fn] < n {
			r.t.Fatalf("fast paths taken: %v, want at least %v", r.taken, want)
		}
	}
}

// TestFastPopBatches: batched pops and trimmed histories through QLESS.
func TestFastPopBatches(t *testing.T) {
	popBatches(newDirectedRun(t, 7))
}

// TestFastPathsThroughEVALSHA: EVALSHA of the printed script takes the same
// fast paths (compared with QLESS on the Lua alone); EVALSHA_RO does not,
// and refuses the writes as the Lua does.
func TestFastPathsThroughEVALSHA(t *testing.T) {
	r := newDirectedRun(t, 7, "evalsha", SHA(), "0")
	if v, _ := r.fast.do(t, "script", "load", Script()); v.Str != SHA() {
		t.Fatalf("script load: %s", valueText(v))
	}
	popBatches(r)
	ro, _ := r.fast.do(t, "evalsha_ro", SHA(), "0", "put", "1763800000", "w", "qa", "ro1", "K", "{}", "0")
	fastOff.Store(true)
	want, _ := r.fast.do(t, "evalsha_ro", SHA(), "0", "put", "1763800000", "w", "qa", "ro1", "K", "{}", "0")
	fastOff.Store(false)
	if ro.Kind != resp.Error || !reflect.DeepEqual(ro, want) {
		t.Fatalf("evalsha_ro put: %s, Lua alone: %s", valueText(ro), valueText(want))
	}
}

// popBatches covers what random runs reach rarely: pops of several jobs
// (batched lock and statistics writes) and histories trimmed by
// max-job-history, each step compared with the Lua.
func popBatches(r *directedRun) {
	at := r.at
	r.call("config.set", at(0), "max-job-history", "4")
	for round := 0; round < 6; round++ {
		for i := 0; i < 8; i++ {
			r.call("put", at(0.3), "w", "qa", "b"+strconv.Itoa(i), "K", `{"n":1}`, "0", "priority", strconv.Itoa(i%3))
		}
		r.call("track", at(0), "track", "b3")
		r.call("pop", at(1.5), "qa", "w1", "3")
		r.call("pop", at(5), "qa", "w2", "10")
		for i := 0; i < 8; i++ {
			r.call("heartbeat", at(0.1), "b"+strconv.Itoa(i), "w2")
		}
	}
	r.check(map[string]int{"pop": 12, "put": 48})
}

// TestFastTaggedJobs: tagged jobs put, popped (alone and in batches) and
// completed past jobs-history-count, so that tagged completed jobs expire
// with their tags, each step compared with the Lua.
func TestFastTaggedJobs(t *testing.T) {
	r := newDirectedRun(t, 9)
	at := r.at
	r.call("config.set", at(0), "jobs-history-count", "3")
	tags := []string{`["a"]`, `["a","b/c"]`, `["b/c","a","a"]`, `{}`, `["x"]`}
	for round := 0; round < 4; round++ {
		for i := 0; i < 5; i++ {
			jid := "t" + strconv.Itoa(round*5+i)
			r.call("put", at(0.2), "w", "qt", jid, "K", `{"n":1}`, "0", "tags", tags[i])
		}
		r.call("pop", at(1), "qt", "w1", "1")
		r.call("pop", at(1), "qt", "w1", "4")
		for i := 0; i < 5; i++ {
			r.call("complete", at(0.5), "t"+strconv.Itoa(round*5+i), "w1", "qt", `{"n":2}`)
		}
	}
	r.check(map[string]int{"put": 20, "pop": 8, "complete": 20})
}

// TestFastCompleteAdvance: jobs completed into queues not seen before,
// waiting or scheduled, tracked or not, then popped from there.
func TestFastCompleteAdvance(t *testing.T) {
	r := newDirectedRun(t, 11)
	at := r.at
	for i := 0; i < 6; i++ {
		jid := "c" + strconv.Itoa(i)
		r.call("put", at(0.1), "w", "qa", jid, "K", `{"n":1}`, "0", "priority", strconv.Itoa(i%2))
		if i%3 == 0 {
			r.call("track", at(0), "track", jid)
		}
		r.call("pop", at(0.5), "qa", "w1", "1")
		next := "stage-" + strconv.Itoa(i)
		if i%2 == 0 {
			r.call("complete", at(0.5), jid, "w1", "qa", `{"n":2}`, "next", next)
		} else {
			r.call("complete", at(0.5), jid, "w1", "qa", `{"n":2}`, "next", next, "delay", "3")
		}
		r.call("pop", at(4), next, "w2", "1")
	}
	r.check(map[string]int{"complete": 6, "pop": 12})
}

// TestFastDependencies: jobs put depending on others (one or two
// dependencies, with and without a delay, on running, waiting and complete
// jobs), released as those complete, then popped.
func TestFastDependencies(t *testing.T) {
	r := newDirectedRun(t, 13)
	at := r.at
	for round := 0; round < 3; round++ {
		p := "r" + strconv.Itoa(round) + "-"
		r.call("put", at(0.1), "w", "qd", p+"a", "K", `{"n":1}`, "0")
		r.call("put", at(0.1), "w", "qd", p+"b", "K", `{"n":1}`, "0")
		r.call("pop", at(0.1), "qd", "w1", "2")
		r.call("put", at(0.1), "w", "qd", p+"c", "K", `{}`, "0", "depends", `["`+p+`a"]`, "priority", "2")
		r.call("put", at(0.1), "w", "qd", p+"d", "K", `{}`, "2", "depends", `["`+p+`a"]`)
		r.call("put", at(0.1), "w", "qd", p+"e", "K", `{}`, "0", "depends", `["`+p+`a","`+p+`b"]`)
		r.call("put", at(0.1), "w", "qe", p+"f", "K", `{}`, "0", "depends", `["`+p+`a","`+p+`a"]`)
		r.call("complete", at(0.5), p+"a", "w1", "qd", `{"n":2}`)
		r.call("put", at(0.1), "w", "qd", p+"g", "K", `{}`, "0", "depends", `["`+p+`a","nobody"]`)
		r.call("complete", at(0.5), p+"b", "w1", "qd", `{"n":2}`)
		r.call("pop", at(3), "qd", "w2", "5")
		r.call("pop", at(0.1), "qe", "w2", "5")
		// A parent popped with dependents (numeric jids: SMEMBERS order
		// is numeric for them).
		par := strconv.Itoa(900 + round)
		r.call("put", at(0.1), "w", "qp", par, "K", `{}`, "0")
		for _, kid := range []string{"100", "20", "3"} {
			r.call("put", at(0.1), "w", "qk", kid+"0"+strconv.Itoa(round), "K", `{}`, "0", "depends", `["`+par+`"]`)
		}
		r.call("pop", at(0.1), "qp", "w3", "1")
		r.call("complete", at(0.1), par, "w3", "qp", `{}`)
		r.call("pop", at(0.1), "qk", "w3", "5")
	}
	r.check(map[string]int{"complete": 9, "put": 33, "pop": 12})
}

// NewTestEnv and NewTestSession give the in-process benchmarks (package
// qless_test) the little of a server qless reaches.
func NewTestEnv(db *store.DB) commands.Env { return &diffEnv{db: db} }

func NewTestSession() commands.Session { return &diffSess{} }
