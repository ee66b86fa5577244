package store

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkUpdateAlways measures SET-like writes per second with
// appendfsync always at several numbers of concurrent writers.
func BenchmarkUpdateAlways(b *testing.B) {
	for _, writers := range []int{1, 8, 50} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			db, err := Open(Options{Dir: b.TempDir(), Sync: SyncAlways})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			before := fsyncCount(db)
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						db.Update(func(tx *Tx) error {
							tx.SetString("k"+strconv.FormatInt(i, 10), "value", 0, false)
							return nil
						})
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			if n := fsyncCount(db); n >= 0 {
				b.ReportMetric(float64(n-before)/float64(b.N), "fsyncs/write")
			}
		})
	}
}
