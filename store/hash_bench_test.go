package store

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// The benchmarks model qless job hashes (ql:j:<jid>, about a dozen fields)
// and use only the public API, so they run unchanged against any layout.
// "short" keeps every value within Redis's listpack limits; "job" carries a
// 300-byte data field, which makes Redis use a hashtable.

func benchJobFields(i int, long bool) []string {
	data := `{"n":1}`
	if long {
		data = `{"payload":"` + strings.Repeat("x", 285) + `"}`
	}
	return []string{
		"jid", fmt.Sprintf("%032x", i), "klass", "Worker::Job", "state", "waiting",
		"queue", "default", "worker", "", "priority", "0", "expires", "0", "retries", "5",
		"remaining", "5", "data", data, "tags", "[]", "history", `[{"q":"default","what":"put","when":1}]`,
	}
}

func benchOpen(b *testing.B) *DB {
	b.Helper()
	db, err := Open(Options{Dir: ":memory:", Sync: SyncNo})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchBytes reports the heap each 12-field hash costs; run it with a fixed
// -benchtime such as 20000x so the figure averages many hashes.
func benchBytes(b *testing.B, long bool) {
	db := benchOpen(b)
	before := heapInUse()
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		db.Update(func(tx *Tx) error {
			for j := i; j < i+1000 && j < b.N; j++ {
				tx.HSet(fmt.Sprintf("ql:j:%d", j), benchJobFields(j, long)...)
			}
			return nil
		})
	}
	b.StopTimer()
	after := heapInUse()
	b.ReportMetric(float64(after-before)/float64(b.N), "B/hash")
	runtime.KeepAlive(db)
}

func BenchmarkHashBytesShort(b *testing.B) { benchBytes(b, false) }
func BenchmarkHashBytesJob(b *testing.B)   { benchBytes(b, true) }

const benchKeys = 1000

func benchFill(b *testing.B, db *DB, long bool) {
	b.Helper()
	db.Update(func(tx *Tx) error {
		for j := 0; j < benchKeys; j++ {
			tx.HSet(fmt.Sprintf("ql:j:%d", j), benchJobFields(j, long)...)
		}
		return nil
	})
}

// benchHSet times one HSET of an existing field (state changes, as qless
// makes them), batched 1000 to a transaction so the figure is the store's.
func benchHSet(b *testing.B, long bool) {
	db := benchOpen(b)
	benchFill(b, db, long)
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ql:j:%d", i)
	}
	states := []string{"running", "waiting"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		db.Update(func(tx *Tx) error {
			for j := i; j < i+1000 && j < b.N; j++ {
				tx.HSet(keys[j%benchKeys], "state", states[j&1])
			}
			return nil
		})
	}
}

func benchHGet(b *testing.B, long bool) {
	db := benchOpen(b)
	benchFill(b, db, long)
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ql:j:%d", i)
	}
	fields := []string{"jid", "state", "worker", "history"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		db.View(func(tx *Tx) error {
			for j := i; j < i+1000 && j < b.N; j++ {
				if _, ok, _ := tx.HGet(keys[j%benchKeys], fields[j&3]); !ok {
					b.Fatal("field missing")
				}
			}
			return nil
		})
	}
}

func BenchmarkHSetShort(b *testing.B) { benchHSet(b, false) }
func BenchmarkHSetJob(b *testing.B)   { benchHSet(b, true) }
func BenchmarkHGetShort(b *testing.B) { benchHGet(b, false) }
func BenchmarkHGetJob(b *testing.B)   { benchHGet(b, true) }
