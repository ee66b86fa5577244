package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestQlessKillRestart runs producers (QLESS put) and workers (QLESS pop,
// then complete) against qlessd with appendfsync always, kills it with
// SIGKILL while they run, restarts it on the same directory, and repeats:
// after every restart each put that was acknowledged is there, in some
// state, and each completion that was acknowledged is complete.
func TestQlessKillRestart(t *testing.T) {
	t.Parallel()
	const rounds, producers, workers, killAfter = 5, 4, 4, 1500
	dir := t.TempDir()
	ctx := context.Background()
	var put, completed []string // jids acknowledged, over all rounds
	for round := range rounds {
		q := StartQlessd(t, dir, "--appendfsync", "always")
		c := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
		checkJobs(t, c, round, put, completed)
		// Completed jobs must stay to be checked: qless drops the oldest
		// past 50,000.
		if err := c.Do(ctx, "QLESS", "config.set", "now", "jobs-history-count", "10000000").Err(); err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		c.Close()
		p, d := killWhileWorking(t, q, round, producers, workers, killAfter)
		if len(p) == 0 || len(d) == 0 {
			t.Fatalf("round %d: %d puts and %d completions acknowledged before the kill", round, len(p), len(d))
		}
		put, completed = append(put, p...), append(completed, d...)
	}
	q := StartQlessd(t, dir, "--appendfsync", "always")
	c := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer c.Close()
	checkJobs(t, c, rounds, put, completed)
	t.Logf("%d rounds: %d puts and %d completions acknowledged, all kept", rounds, len(put), len(completed))
}

// killWhileWorking runs the producers and workers on q until they have
// had killAfter operations acknowledged, kills q with SIGKILL, and returns
// the jids whose put and whose completion were acknowledged.
func killWhileWorking(t *testing.T, q *Proc, round, producers, workers int, killAfter int64) (put, completed []string) {
	ctx := context.Background()
	var mu sync.Mutex
	var acked atomic.Int64
	var killOnce sync.Once
	killed := make(chan struct{})
	ack := func(list *[]string, jid string) {
		mu.Lock()
		*list = append(*list, jid)
		mu.Unlock()
		if acked.Add(1) == killAfter {
			killOnce.Do(func() { q.Kill(); close(killed) })
		}
	}
	var wg sync.WaitGroup
	client := func() *redis.Client {
		return redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2, PoolSize: 1, MaxRetries: -1, DialerRetries: 1})
	}
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client()
			defer c.Close()
			for n := 0; ; n++ {
				jid := fmt.Sprintf("r%d-p%d-%d", round, p, n)
				if err := c.Do(ctx, "QLESS", "put", "now", "", "queue", jid, "Klass", "{}", "0").Err(); err != nil {
					return
				}
				ack(&put, jid)
			}
		}()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client()
			defer c.Close()
			worker := fmt.Sprintf("w%d", w)
			for {
				popped, err := c.Do(ctx, "QLESS", "pop", "now", "queue", worker, "5").Text()
				if err != nil {
					return
				}
				var jobs []struct{ Jid string }
				json.Unmarshal([]byte(popped), &jobs)
				for _, j := range jobs {
					if err := c.Do(ctx, "QLESS", "complete", "now", j.Jid, worker, "queue", "{}").Err(); err != nil {
						return
					}
					ack(&completed, j.Jid)
				}
			}
		}()
	}
	select {
	case <-killed:
	case <-time.After(waitTimeout):
		killOnce.Do(func() { q.Kill(); close(killed) })
		t.Errorf("round %d: only %d operations acknowledged in %v", round, acked.Load(), waitTimeout)
	}
	wg.Wait()
	return put, completed
}

// checkJobs fails the test unless every jid in put exists and every jid
// in completed is complete.
func checkJobs(t *testing.T, c *redis.Client, round int, put, completed []string) {
	t.Helper()
	ctx := context.Background()
	state := func(jids []string) []string {
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, jid := range jids {
				p.Do(ctx, "QLESS", "get", "now", jid)
			}
			return nil
		})
		if err != nil && err != redis.Nil {
			t.Fatalf("after restart %d: %v", round, err)
		}
		out := make([]string, len(jids))
		for i, cmd := range cmds {
			var job struct{ State string }
			if s, err := cmd.(*redis.Cmd).Text(); err == nil && json.Unmarshal([]byte(s), &job) == nil {
				out[i] = job.State
			}
		}
		return out
	}
	for i, s := range state(put) {
		if s == "" {
			t.Fatalf("after restart %d: job %s, whose put was acknowledged, is gone", round, put[i])
		}
	}
	for i, s := range state(completed) {
		if s != "complete" {
			t.Fatalf("after restart %d: job %s, whose completion was acknowledged, is %q", round, completed[i], s)
		}
	}
}
