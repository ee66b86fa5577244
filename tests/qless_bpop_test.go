package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// bpopClient is a client whose reads wait as long as a bpop may.
func bpopClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, ReadTimeout: time.Minute, PoolSize: 64})
}

// blockedClients waits until INFO says n clients are blocked: a waiter
// counts once the server has registered it.
func blockedClients(t *testing.T, rdb *redis.Client, n int) {
	t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r", n)
	for deadline := time.Now().Add(waitTimeout); ; {
		info := rdb.Info(context.Background(), "clients").Val()
		if strings.Contains(info, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked clients never reached %d in %v:\n%s", n, waitTimeout, info)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// poppedJids reads a pop reply's jids; none from "{}", which is how
// qless's cjson writes an empty pop.
func poppedJids(t *testing.T, reply string) []string {
	t.Helper()
	if reply == "{}" || reply == "[]" {
		return nil
	}
	var jobs []struct{ Jid string }
	if err := json.Unmarshal([]byte(reply), &jobs); err != nil {
		t.Fatalf("pop reply %q: %v", reply, err)
	}
	var jids []string
	for _, j := range jobs {
		jids = append(jids, j.Jid)
	}
	return jids
}

// startBPop runs a bpop in the background and returns its reply channel.
func startBPop(rdb *redis.Client, args ...any) chan string {
	out := make(chan string, 1)
	go func() {
		v, err := rdb.Do(context.Background(), append([]any{"QLESS", "bpop", "now"}, args...)...).Text()
		if err != nil {
			v = "error: " + err.Error()
		}
		out <- v
	}()
	return out
}

// TestQlessBPopWakes checks each way a waiting bpop gets a job: what a
// write makes available (put, retry, unpause, a dependency completing) and
// what the clock does (a scheduled job falling due, a lock expiring).
func TestQlessBPopWakes(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	ctx := context.Background()
	do := func(args ...any) string {
		v, err := rdb.Do(ctx, append([]any{"QLESS"}, args...)...).Result()
		if err != nil && err != redis.Nil {
			t.Errorf("%v: %v", args, err)
		}
		return fmt.Sprint(v)
	}
	cases := []struct {
		name   string
		before func(queue string) // before the bpop waits
		wake   func(queue string) // once it waits
		want   string
	}{
		{"put", nil, func(qn string) { do("put", "now", "p", qn, "j-put", "K", "{}", "0") }, "j-put"},
		{"scheduled", func(qn string) { do("put", "now", "p", qn, "j-sched", "K", "{}", "1") }, nil, "j-sched"},
		{"retry", func(qn string) {
			do("put", "now", "p", qn, "j-retry", "K", "{}", "0")
			do("pop", "now", qn, "w0", "1")
		}, func(qn string) { do("retry", "now", "j-retry", qn, "w0", "0") }, "j-retry"},
		{"unpause", func(qn string) {
			do("pause", "now", qn)
			do("put", "now", "p", qn, "j-paused", "K", "{}", "0")
		}, func(qn string) { do("unpause", "now", qn) }, "j-paused"},
		{"dependency", func(qn string) {
			do("put", "now", "p", qn, "j-parent", "K", "{}", "0")
			do("pop", "now", qn, "w0", "1")
			do("put", "now", "p", qn, "j-child", "K", "{}", "0", "depends", `["j-parent"]`)
		}, func(qn string) { do("complete", "now", "j-parent", "w0", qn, "{}") }, "j-child"},
		{"lock expiry", func(qn string) {
			// No grace: the first expiry hands the job out again.
			do("config.set", "now", "grace-period", "0")
			do("config.set", "now", qn+"-heartbeat", "1")
			do("put", "now", "p", qn, "j-lock", "K", "{}", "0")
			do("pop", "now", qn, "w0", "1")
		}, nil, "j-lock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qn := "wake-" + strings.ReplaceAll(tc.name, " ", "-")
			if tc.before != nil {
				tc.before(qn)
			}
			reply := startBPop(rdb, "w1", "1", "30", "other-queue", qn)
			blockedClients(t, rdb, 1)
			start := time.Now()
			if tc.wake != nil {
				tc.wake(qn)
			}
			got := <-reply
			if jids := poppedJids(t, got); len(jids) != 1 || jids[0] != tc.want {
				t.Fatalf("bpop got %q, want job %s", got, tc.want)
			}
			t.Logf("%s: served %v after the wake", tc.name, time.Since(start))
			var job struct{ State, Worker string }
			json.Unmarshal([]byte(do("get", "now", tc.want)), &job)
			if job.State != "running" || job.Worker != "w1" {
				t.Fatalf("job after bpop: %+v", job)
			}
			blockedClients(t, rdb, 0)
		})
	}
}

// TestQlessBPopReplies checks bpop's replies that need no waiting: work
// already there (filling count from the queues in order), the timeout,
// inside MULTI, and its argument errors.
func TestQlessBPopReplies(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	ctx := context.Background()
	for i, qn := range []string{"a", "b", "b"} {
		rdb.Do(ctx, "QLESS", "put", "now", "p", qn, fmt.Sprintf("j%d", i), "K", "{}", "0")
	}
	got := rdb.Do(ctx, "QLESS", "bpop", "now", "w", "5", "1", "b", "a").Val().(string)
	if jids := poppedJids(t, got); strings.Join(jids, ",") != "j1,j2,j0" {
		t.Fatalf("bpop from b then a got %v", jids)
	}
	if v := rdb.Do(ctx, "QLESS", "bpop", "now", "w", "1", "0.05", "a").Val(); v != "[]" {
		t.Fatalf("bpop timeout = %q, want []", v)
	}
	pipe := rdb.TxPipeline()
	inMulti := pipe.Do(ctx, "QLESS", "bpop", "now", "w", "1", "0", "a")
	if _, err := pipe.Exec(ctx); err != nil || inMulti.Val() != "[]" {
		t.Fatalf("bpop in MULTI = %v, %v; want [] at once", inMulti.Val(), err)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"x", "w", "1", "1", "a"}, `ERR Arg "now" missing or not a number: x`},
		{[]any{"1"}, `ERR BPop(): Arg "worker" missing`},
		{[]any{"1", "w", "n", "1", "a"}, `ERR BPop(): Arg "count" missing or not a number: n`},
		{[]any{"1", "w", "0", "1", "a"}, `ERR BPop(): Arg "count" must be a whole number from 1 to 1000: 0`},
		{[]any{"1", "w", "1"}, `ERR BPop(): Arg "timeout" missing or not a number: nil`},
		{[]any{"1", "w", "1", "-1", "a"}, `ERR BPop(): Arg "timeout" must be a number of seconds, 0 or more: -1`},
		{[]any{"1", "w", "1", "1"}, `ERR BPop(): Arg "queue" missing`},
	} {
		err := rdb.Do(ctx, append([]any{"QLESS", "bpop"}, tc.args...)...).Err()
		if err == nil || err.Error() != tc.want {
			t.Errorf("bpop %v: %v, want %s", tc.args, err, tc.want)
		}
	}
}

// TestQlessBPopOrderAndLeaving checks that waiting workers are served in
// the order they came, and that one that leaves while waiting takes nothing.
func TestQlessBPopOrderAndLeaving(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	ctx := context.Background()

	gone, err := net.Dial("tcp", q.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(gone, "QLESS bpop now leaver 1 0 order\r\n")
	blockedClients(t, rdb, 1)
	gone.Close()
	// The server has seen it leave once it no longer counts it: until
	// then the count of waiters below could go down as well as up.
	blockedClients(t, rdb, 0)

	var replies []chan string
	for i := 0; i < 3; i++ {
		replies = append(replies, startBPop(rdb, fmt.Sprintf("w%d", i), "1", "30", "order"))
		blockedClients(t, rdb, i+1)
	}
	for i := 0; i < 3; i++ {
		jid := fmt.Sprintf("o%d", i)
		rdb.Do(ctx, "QLESS", "put", "now", "p", "order", jid, "K", "{}", "0")
		if got := poppedJids(t, <-replies[i]); len(got) != 1 || got[0] != jid {
			t.Fatalf("waiter %d got %v, want %s (arrival order)", i, got, jid)
		}
	}
	workers := rdb.Do(ctx, "QLESS", "workers", "now").Val().(string)
	if !strings.Contains(workers, `"name":"leaver","jobs":0`) {
		t.Fatalf("the worker that left holds a job: %s", workers)
	}
}

// TestQlessBPopManyWorkers has 50 workers wait on 3 queues while 100,000
// jobs are put (20,000 in make test): each job is completed once, none is
// lost.
func TestQlessBPopManyWorkers(t *testing.T) {
	t.Parallel()
	const workers = 50
	jobs := int64(soakOr(20000, 100000))
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	ctx := context.Background()
	queues := []any{"m0", "m1", "m2"}
	var done sync.Map
	var completed, dups atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(worker string) {
			defer wg.Done()
			for completed.Load() < jobs {
				args := append([]any{"QLESS", "bpop", "now", worker, "1", "1"}, queues...)
				reply, err := rdb.Do(ctx, args...).Text()
				if err != nil {
					t.Errorf("bpop: %v", err)
					return
				}
				var popped []struct{ Jid, Queue string }
				json.Unmarshal([]byte(reply), &popped)
				for _, j := range popped {
					if _, seen := done.LoadOrStore(j.Jid, worker); seen {
						dups.Add(1)
					}
					if err := rdb.Do(ctx, "QLESS", "complete", "now", j.Jid, worker, j.Queue, "{}").Err(); err != nil {
						t.Errorf("complete %s: %v", j.Jid, err)
						return
					}
					completed.Add(1)
				}
			}
		}(fmt.Sprintf("worker-%d", w))
	}
	pipe := rdb.Pipeline()
	for i := range int(jobs) {
		pipe.Do(ctx, "QLESS", "put", "now", "p", queues[i%3], fmt.Sprintf("m-%d", i), "K", "{}", "0")
		if i%500 == 499 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	wg.Wait()
	if completed.Load() != jobs || dups.Load() != 0 {
		t.Fatalf("completed %d of %d, %d twice", completed.Load(), jobs, dups.Load())
	}
	for _, qn := range queues {
		counts := rdb.Do(ctx, "QLESS", "queues", "now", qn).Val().(string)
		for _, field := range []string{`"waiting":0`, `"running":0`, `"stalled":0`} {
			if !strings.Contains(counts, field) {
				t.Fatalf("queue %s after the run: %s", qn, counts)
			}
		}
	}
}
