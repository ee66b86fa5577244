package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLoadJobs times start-up on a data file of queued qless-like
// jobs: each a hash of twelve fields with 100 bytes of data, a one-entry
// history list and a member of one large sorted set (the queue's work
// set), as QLESS put leaves them. QLESSD_LOAD_JOBS sets how many (default
// 100,000). It reports MB/s of data file loaded and the heap per job.
//
//	go test ./store -run '^$' -bench LoadJobs -benchtime 3x -cpuprofile cpu.out
func BenchmarkLoadJobs(b *testing.B) {
	n := 100000
	if s := os.Getenv("QLESSD_LOAD_JOBS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	writeJobs(b, dir, n)
	fi, err := os.Stat(filepath.Join(dir, DataFile))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	var heap uint64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		base := heapInUse()
		cpu0 := cpuTime()
		b.StartTimer()
		db, err := Open(Options{Dir: dir, Sync: SyncNo})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - cpu0
		heap = heapInUse() - base
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/float64(n), "B/job")
	// On a shared machine the wall time says as much about the other
	// processes; the CPU time (all threads, the collector's included)
	// does not.
	b.ReportMetric(float64(fi.Size())/1e6/(cpu.Seconds()/float64(b.N)), "MB/cpu-s")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeJobs writes n jobs into the data file in dir, 1,000 to a
// transaction, as a stream of puts leaves it.
func writeJobs(b *testing.B, dir string, n int) {
	db, err := Open(Options{Dir: dir, Sync: SyncNo, Rewrite: &RewriteSettings{}})
	if err != nil {
		b.Fatal(err)
	}
	data := `{"payload":"` + strings.Repeat("x", 86) + `"}`
	for i := 0; i < n; i += 1000 {
		err := db.Update(func(tx *Tx) error {
			z, err := tx.OpenZSet("ql:q:q-work")
			if err != nil {
				return err
			}
			for j := i; j < min(i+1000, n); j++ {
				jid := fmt.Sprintf("%032x", j)
				if _, err := tx.HSet("ql:j:"+jid, "data", data, "expires", "0", "jid", jid, "klass", "bench.Job",
					"priority", "0", "queue", "q", "remaining", "5", "retries", "5", "state", "waiting",
					"tags", "{}", "time", "1765000000.000", "worker", ""); err != nil {
					return err
				}
				if _, err := tx.ListPush("ql:j:"+jid+"-history", []string{`[1765000000,"put",{"q":"q"}]`}, false, false); err != nil {
					return err
				}
				z.Put(jid, -1765000000000+float64(j)/1e6)
			}
			z.Flush()
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
}
