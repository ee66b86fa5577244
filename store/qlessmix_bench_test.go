package store

import (
	"strconv"
	"testing"
)

// The qless-mix benchmarks replay, through the store API, the shape of the
// writes one qless put and one pop+complete make: a job hash of long JSON
// values read and rewritten several times, a work queue sorted set that
// holds every waiting job, small per-worker and stats collections. Each op
// is one write transaction, as the server runs a script. The File variants
// append to a data file (appendfsync no), so commit costs the :memory:
// variants hide, buntdb's serialization of every written item and its write
// call, are in the figures.

const benchMixQueue = "ql:q:q-work"

var benchMixData = `{"t":1763790000000000000,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`

func benchMixJobKey(jid string) string { return "ql:j:" + jid }

// benchMixPut stores job jid as qless's put does.
func benchMixPut(b *testing.B, tx *Tx, jid string, now int) {
	key := benchMixJobKey(jid)
	if _, _, err := tx.HGet(key, "state"); err != nil {
		b.Fatal(err)
	}
	ts := strconv.Itoa(now)
	if _, err := tx.HSet(key, "jid", jid, "klass", "bench.Job", "data", benchMixData,
		"priority", "0", "tags", "{}", "state", "waiting", "worker", "", "expires", "0",
		"queue", "q", "retries", "5", "remaining", "5", "time", ts,
		"history", `[{"q":"q","what":"put","when":`+ts+`}]`, "failure", "{}", "dependents", "{}"); err != nil {
		b.Fatal(err)
	}
	z, err := tx.OpenZSet(benchMixQueue)
	if err != nil {
		b.Fatal(err)
	}
	z.Put(jid, float64(now))
	z.Flush()
	if _, err := tx.SAdd("ql:queues-set", "q"); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.HIncrBy("ql:s:stats:q", "put", 1); err != nil {
		b.Fatal(err)
	}
}

// benchMixPopComplete pops the first job of the queue and completes it.
func benchMixPopComplete(b *testing.B, tx *Tx, now int) {
	z, err := tx.OpenZSet(benchMixQueue)
	if err != nil {
		b.Fatal(err)
	}
	var jid string
	z.RangeByScore(ScoreBound{Value: -1e300}, ScoreBound{Value: 1e300}, false, func(e Entry) bool {
		jid = e.Member
		return false
	})
	if jid == "" {
		b.Fatal("queue empty")
	}
	z.Remove(jid)
	z.Flush()
	key := benchMixJobKey(jid)
	ts := strconv.Itoa(now)
	for range 3 { // pop, then complete, read the job
		if err := tx.HMGet(key, [][]byte{[]byte("jid"), []byte("state"), []byte("data"), []byte("history"), []byte("worker")}, func(string, bool) {}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.HSet(key, "state", "running", "worker", "w", "expires", ts); err != nil {
		b.Fatal(err)
	}
	w, err := tx.OpenZSet("ql:w:w:jobs")
	if err != nil {
		b.Fatal(err)
	}
	w.Put(jid, float64(now))
	w.Flush()
	w, _ = tx.OpenZSet("ql:w:w:jobs")
	w.Remove(jid)
	w.Flush()
	if _, err := tx.HSet(key, "state", "complete", "worker", "", "history", `[{"q":"q","what":"done","when":`+ts+`}]`); err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"popped", "completed", "run-total", "run-count"} {
		if _, err := tx.HIncrBy("ql:s:stats:q", f, 1); err != nil {
			b.Fatal(err)
		}
	}
	tx.Delete(key)
}

func benchMixOpen(b *testing.B, file bool) *DB {
	b.Helper()
	dir := ":memory:"
	if file {
		dir = b.TempDir()
	}
	db, err := Open(Options{Dir: dir, Sync: SyncNo})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func benchMixPutN(b *testing.B, file bool) {
	db := benchMixOpen(b, file)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		db.Update(func(tx *Tx) error {
			benchMixPut(b, tx, "job-"+strconv.Itoa(i), i)
			return nil
		})
	}
}

func benchMixPopCompleteN(b *testing.B, file bool) {
	db := benchMixOpen(b, file)
	n := b.N
	for i := 0; i < n; i++ {
		db.Update(func(tx *Tx) error {
			benchMixPut(b, tx, "job-"+strconv.Itoa(i), i)
			return nil
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		db.Update(func(tx *Tx) error {
			benchMixPopComplete(b, tx, n+i)
			return nil
		})
	}
}

func BenchmarkMixPutMemory(b *testing.B)         { benchMixPutN(b, false) }
func BenchmarkMixPutFile(b *testing.B)           { benchMixPutN(b, true) }
func BenchmarkMixPopCompleteMemory(b *testing.B) { benchMixPopCompleteN(b, false) }
func BenchmarkMixPopCompleteFile(b *testing.B)   { benchMixPopCompleteN(b, true) }
