package qless_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// benchQless runs QLESS commands in-process the way the server does: one
// write transaction per command, the reply to a buffer.
type benchQless struct {
	db    *store.DB
	table *commands.Table
	cmd   *commands.Cmd
	env   commands.Env
	sess  commands.Session
	rec   resp.Recorder
}

func newBenchQless(b *testing.B) *benchQless {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	table := commands.Default()
	e := scripts.NewEngine(scripts.Options{})
	commands.RegisterScripting(table, e)
	if err := qless.Register(table, e, qless.Options{}); err != nil {
		b.Fatal(err)
	}
	return &benchQless{db: db, table: table, cmd: table.Lookup([]byte("qless")), env: qless.NewTestEnv(db), sess: qless.NewTestSession()}
}

func (q *benchQless) do(b *testing.B, args ...string) resp.Value {
	argv := make([][]byte, 0, len(args)+1)
	argv = append(argv, []byte("qless"))
	for _, a := range args {
		argv = append(argv, []byte(a))
	}
	q.rec.Reset()
	ctx := &commands.Ctx{Sess: q.sess, Env: q.env, Table: q.table, W: &q.rec}
	if err := q.db.Update(func(tx *store.Tx) error {
		ctx.Tx = tx
		q.table.Dispatch(ctx, q.cmd, argv)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	v := q.rec.Value()
	if v.Kind == resp.Error {
		b.Fatalf("%v: %s", args, v.Str)
	}
	return v
}

const benchData = `{"t":1763790000000000000,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`

func jid(i int) string { return "job-" + strconv.Itoa(i) }

func BenchmarkQlessPut(b *testing.B) {
	q := newBenchQless(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
}

func BenchmarkQlessPopComplete(b *testing.B) {
	q := newBenchQless(b)
	n := b.N
	for i := 0; i < n; i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		v := q.do(b, "pop", "now", "q", "w", "1")
		if !strings.Contains(v.Str, `"jid":"`+jid(i)+`"`) {
			b.Fatalf("pop gave %q", v.Str)
		}
		q.do(b, "complete", "now", jid(i), "w", "q", benchData)
	}
}

// BenchmarkQlessPopCompleteBacklog is pop + complete as the server sees it
// under load: 50 workers taking turns on a queue 200,000 jobs deep, so the
// keyspace and the worker sets are those of the benchmark's pop1 cell.
func BenchmarkQlessPopCompleteBacklog(b *testing.B) {
	q := newBenchQless(b)
	const backlog, workers = 200000, 50
	for i := 0; i < max(backlog, b.N); i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	names := make([]string, workers)
	for i := range names {
		names[i] = "worker-" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := names[i%workers]
		q.do(b, "pop", "now", "q", w, "1")
		q.do(b, "complete", "now", jid(i), w, "q", benchData)
	}
}

func BenchmarkQlessHeartbeat(b *testing.B) {
	q := newBenchQless(b)
	const pool = 200
	for i := 0; i < pool; i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	q.do(b, "pop", "now", "q", "w", strconv.Itoa(pool))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.do(b, "heartbeat", "now", jid(i%pool), "w", benchData)
	}
}

// BenchmarkQlessPop10 is a worker taking ten jobs per call: one op is one
// pop of ten jobs.
func BenchmarkQlessPop10(b *testing.B) {
	q := newBenchQless(b)
	n := b.N
	for i := 0; i < 10*n; i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		v := q.do(b, "pop", "now", "q", "w", "10")
		if !strings.Contains(v.Str, `"jid":"`+jid(10*i+9)+`"`) {
			b.Fatalf("pop gave %q", v.Str)
		}
	}
}

// BenchmarkQlessPopCompleteAtHistoryCap is pop + complete once
// ql:completed holds jobs-history-count jobs, as a long-running queue's
// does: each completion also deletes the oldest completed job.
func BenchmarkQlessPopCompleteAtHistoryCap(b *testing.B) {
	q := newBenchQless(b)
	const historyCap = 1000
	q.do(b, "config.set", "now", "jobs-history-count", strconv.Itoa(historyCap))
	n := b.N + historyCap
	for i := 0; i < n; i++ {
		q.do(b, "put", "now", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	for i := 0; i < historyCap; i++ {
		q.do(b, "pop", "now", "q", "w", "1")
		q.do(b, "complete", "now", jid(i), "w", "q", benchData)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := historyCap; i < n; i++ {
		q.do(b, "pop", "now", "q", "w", "1")
		q.do(b, "complete", "now", jid(i), "w", "q", benchData)
	}
}
