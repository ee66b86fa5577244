package store

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// The benchmarks model qless's small collections with the public API only,
// so they run unchanged against any layout: a job's history list
// (ql:j:<jid>-history, five entries of about 120 bytes) and a worker's job
// set (ql:w:<worker>:jobs, ten jids scored by time). Run the B/… figures
// with a fixed -benchtime such as 20000x so they average many keys.

const (
	benchHistLen  = 5
	benchZSetSize = 10
)

func benchHistEntry(i int) string {
	return fmt.Sprintf(`{"q":"default","what":"popped","worker":"host-%d-worker","when":%d}`+strings.Repeat(" ", 40), i%7, 1700000000+i)
}

func benchJid(i int) string { return fmt.Sprintf("%032x", i) }

func fillHistory(tx *Tx, key string, n int) {
	for k := 0; k < n; k++ {
		tx.ListPush(key, []string{benchHistEntry(k)}, false, false)
	}
}

func fillWorkerSet(tx *Tx, key string, base int) {
	z, _ := tx.OpenZSet(key)
	for k := 0; k < benchZSetSize; k++ {
		z.Put(benchJid(base+k), float64(1700000000+k))
	}
	z.Flush()
}

// benchCollBytes reports the heap one small collection built by fill costs.
func benchCollBytes(b *testing.B, unit string, fill func(tx *Tx, i int)) {
	db := benchOpen(b)
	before := heapInUse()
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		db.Update(func(tx *Tx) error {
			for j := i; j < i+1000 && j < b.N; j++ {
				fill(tx, j)
			}
			return nil
		})
	}
	b.StopTimer()
	after := heapInUse()
	b.ReportMetric(float64(after-before)/float64(b.N), unit)
	runtime.KeepAlive(db)
}

func BenchmarkListBytesHistory(b *testing.B) {
	benchCollBytes(b, "B/list", func(tx *Tx, i int) { fillHistory(tx, fmt.Sprintf("ql:j:%d-history", i), benchHistLen) })
}

func BenchmarkZSetBytesSmall(b *testing.B) {
	benchCollBytes(b, "B/zset", func(tx *Tx, i int) { fillWorkerSet(tx, fmt.Sprintf("ql:w:%d:jobs", i), i*benchZSetSize) })
}

// benchOps fills benchKeys collections and times op, 1000 to a transaction.
func benchOps(b *testing.B, write bool, fill func(tx *Tx, key string, i int), op func(tx *Tx, key string, j int)) {
	db := benchOpen(b)
	keys := make([]string, benchKeys)
	db.Update(func(tx *Tx) error {
		for i := range keys {
			keys[i] = fmt.Sprintf("k:%d", i)
			fill(tx, keys[i], i)
		}
		return nil
	})
	run := db.View
	if write {
		run = db.Update
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		run(func(tx *Tx) error {
			for j := i; j < i+1000 && j < b.N; j++ {
				op(tx, keys[j%benchKeys], j)
			}
			return nil
		})
	}
}

func histFill(tx *Tx, key string, _ int) { fillHistory(tx, key, benchHistLen) }

// BenchmarkListPushPop pushes one history entry and pops the oldest, so the
// list keeps its length.
func BenchmarkListPushPop(b *testing.B) {
	benchOps(b, true, histFill, func(tx *Tx, key string, j int) {
		tx.ListPush(key, []string{benchHistEntry(j)}, false, false)
		tx.ListPop(key, true, 1)
	})
}

func BenchmarkListRangeAll(b *testing.B) {
	benchOps(b, false, histFill, func(tx *Tx, key string, _ int) {
		if v, _ := tx.ListRange(key, 0, -1); len(v) != benchHistLen {
			b.Fatal("short range")
		}
	})
}

func BenchmarkListIndex(b *testing.B) {
	benchOps(b, false, histFill, func(tx *Tx, key string, j int) {
		if _, ok, _ := tx.ListIndex(key, int64(j%benchHistLen)); !ok {
			b.Fatal("missing")
		}
	})
}

func zsetFill(tx *Tx, key string, i int) { fillWorkerSet(tx, key, i*benchZSetSize) }

// BenchmarkZAddUpdate moves one member to a new score (a heartbeat).
func BenchmarkZAddUpdate(b *testing.B) {
	benchOps(b, true, zsetFill, func(tx *Tx, key string, j int) {
		z, _ := tx.OpenZSet(key)
		z.Put(benchJid((j%benchKeys)*benchZSetSize+j%benchZSetSize), float64(1800000000+j))
		z.Flush()
	})
}

// BenchmarkZAddRemove adds a member and removes it again.
func BenchmarkZAddRemove(b *testing.B) {
	benchOps(b, true, zsetFill, func(tx *Tx, key string, j int) {
		z, _ := tx.OpenZSet(key)
		z.Put("extra", float64(j))
		z.Flush()
		z, _ = tx.OpenZSet(key)
		z.Remove("extra")
		z.Flush()
	})
}

func BenchmarkZScore(b *testing.B) {
	benchOps(b, false, zsetFill, func(tx *Tx, key string, j int) {
		z, _ := tx.OpenZSet(key)
		if _, ok := z.Score(benchJid((j%benchKeys)*benchZSetSize + j%benchZSetSize)); !ok {
			b.Fatal("missing")
		}
	})
}

// BenchmarkZRangeByScore takes the first member due (ZRANGEBYSCORE
// -inf now LIMIT 0 1).
func BenchmarkZRangeByScore(b *testing.B) {
	benchOps(b, false, zsetFill, func(tx *Tx, key string, _ int) {
		z, _ := tx.OpenZSet(key)
		n := 0
		z.RangeByScore(ScoreBound{Value: math.Inf(-1)}, ScoreBound{Value: 1700000005}, false, func(Entry) bool { n++; return false })
		if n != 1 {
			b.Fatal("empty range")
		}
	})
}

func BenchmarkZCard(b *testing.B) {
	benchOps(b, false, zsetFill, func(tx *Tx, key string, _ int) {
		z, _ := tx.OpenZSet(key)
		if z.Len() != benchZSetSize {
			b.Fatal("wrong size")
		}
	})
}
