package qless_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// stockQless runs qless-core's own qless.lua through EVALSHA, as existing
// client libraries do. The script is not part of this repository: its path
// comes from QLESS_LUA, and the benchmarks skip without it.
type stockQless struct {
	*benchQless
	sha string
}

func newStockQless(b *testing.B) *stockQless {
	path := os.Getenv("QLESS_LUA")
	if path == "" {
		b.Skip("QLESS_LUA names no qless-core qless.lua")
	}
	body, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	q := &stockQless{benchQless: newBenchQless(b)}
	v := q.run(b, "script", "load", string(body))
	q.sha = v.Str
	return q
}

// run executes one command line in its own write transaction.
func (q *stockQless) run(b *testing.B, args ...string) resp.Value {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	cmd := q.table.Lookup(argv[0])
	q.rec.Reset()
	c := &commands.Ctx{Sess: q.sess, Env: q.env, Table: q.table, W: &q.rec}
	if err := q.db.Update(func(tx *store.Tx) error {
		c.Tx = tx
		q.table.Dispatch(c, cmd, argv)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	v := q.rec.Value()
	if v.Kind == resp.Error {
		b.Fatalf("%v: %s", args[:min(len(args), 4)], v.Str)
	}
	return v
}

// call is EVALSHA <sha> 0 <function> <now> <args...>.
func (q *stockQless) call(b *testing.B, fn string, args ...string) resp.Value {
	line := append([]string{"evalsha", q.sha, "0", fn, stockNow}, args...)
	return q.run(b, line...)
}

const stockNow = "1763790000"

func BenchmarkStockPut(b *testing.B) {
	q := newStockQless(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.call(b, "put", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
}

func BenchmarkStockPopComplete(b *testing.B) {
	q := newStockQless(b)
	n := b.N
	for i := 0; i < n; i++ {
		q.call(b, "put", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		v := q.call(b, "pop", "q", "w", "1")
		// Jobs put in the same second pop in no set order.
		_, rest, ok := strings.Cut(v.Str, `"jid":"`)
		popped, _, _ := strings.Cut(rest, `"`)
		if !ok || popped == "" {
			b.Fatalf("pop gave %q", v.Str)
		}
		q.call(b, "complete", popped, "w", "q", benchData)
	}
}

func BenchmarkStockHeartbeat(b *testing.B) {
	q := newStockQless(b)
	const pool = 200
	for i := 0; i < pool; i++ {
		q.call(b, "put", "w", "q", jid(i), "bench.Job", benchData, "0")
	}
	q.call(b, "pop", "q", "w", strconv.Itoa(pool))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.call(b, "heartbeat", jid(i%pool), "w", benchData)
	}
}
