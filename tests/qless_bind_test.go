package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// jobState reads a job's state and worker.
func jobState(t *testing.T, rdb *redis.Client, jid string) (state, worker string) {
	t.Helper()
	var job struct{ State, Worker string }
	raw, err := rdb.Do(context.Background(), "QLESS", "get", "now", jid).Text()
	if err != nil {
		t.Fatalf("get %s: %v", jid, err)
	}
	json.Unmarshal([]byte(raw), &job)
	return job.State, job.Worker
}

// waitState waits (up to limit) for a job to reach state.
func waitState(t *testing.T, rdb *redis.Client, jid, state string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got, _ := jobState(t, rdb, jid)
		if got == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s after %v, want %s", jid, got, limit, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bindAndPop binds worker on a connection of its own (a client of one
// connection, which Close closes), pops one job of queue for it and
// returns the client.
func bindAndPop(t *testing.T, addr, worker, grace, queue string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1})
	ctx := context.Background()
	if err := c.Do(ctx, "QLESS", "worker.bind", "now", worker, grace).Err(); err != nil {
		t.Fatalf("worker.bind: %v", err)
	}
	if v := c.Do(ctx, "QLESS", "pop", "now", queue, worker, "1").Val(); !strings.Contains(v.(string), `"worker":"`+worker+`"`) {
		t.Fatalf("pop for %s: %v", worker, v)
	}
	return c
}

// TestQlessWorkerBind checks that a bound worker's jobs are handed back
// once its connection is gone for the grace period, and not when it binds
// again within it.
func TestQlessWorkerBind(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer rdb.Close()
	ctx := context.Background()
	for _, jid := range []string{"gone", "kept"} {
		rdb.Do(ctx, "QLESS", "put", "now", "p", "bind-"+jid, jid, "K", "{}", "0")
	}

	c := bindAndPop(t, q.Addr, "w-gone", "1", "bind-gone")
	if s, w := jobState(t, rdb, "gone"); s != "running" || w != "w-gone" {
		t.Fatalf("popped job: %s %s", s, w)
	}
	c.Close()
	waitState(t, rdb, "gone", "stalled", waitTimeout)
	if n := rdb.HExists(ctx, "ql:bound", "w-gone").Val(); n {
		t.Fatalf("ql:bound still holds w-gone")
	}
	// The job is handed out again as a lost lock is.
	if v := rdb.Do(ctx, "QLESS", "pop", "now", "bind-gone", "other", "1").Val(); !strings.Contains(v.(string), `"jid":"gone"`) {
		t.Fatalf("pop after the hand-back: %v", v)
	}

	c = bindAndPop(t, q.Addr, "w-kept", "2", "bind-kept")
	c.Close()
	again := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2, PoolSize: 1})
	defer again.Close()
	if err := again.Do(ctx, "QLESS", "worker.bind", "now", "w-kept", "2").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // past the grace period
	if s, w := jobState(t, rdb, "kept"); s != "running" || w != "w-kept" {
		t.Fatalf("job of a worker that bound again: %s %s", s, w)
	}

	for _, tc := range []struct{ args []any }{
		{[]any{"QLESS", "worker.bind", "now"}},
		{[]any{"QLESS", "worker.bind", "now", "w", "x"}},
		{[]any{"QLESS", "worker.bind", "now", "w", "-1"}},
	} {
		if err := rdb.Do(ctx, tc.args...).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR worker.bind(): ") {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
	db1 := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2, DB: 1})
	defer db1.Close()
	if err := db1.Do(ctx, "QLESS", "worker.bind", "now", "w", "1").Err(); err == nil || err.Error() != "ERR worker.bind(): workers are bound in database 0 only" {
		t.Errorf("worker.bind in database 1: %v", err)
	}
	pipe := rdb.TxPipeline()
	inMulti := pipe.Do(ctx, "QLESS", "worker.bind", "now", "w", "1")
	pipe.Exec(ctx)
	if inMulti.Err() == nil {
		t.Errorf("worker.bind inside MULTI was accepted")
	}
}

// TestQlessWorkerBindRestart checks that a binding outlives a restart: the
// worker's grace period starts again at start-up and, with no connection
// binding it, its jobs are handed back.
func TestQlessWorkerBindRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir, "--appendfsync", "always")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	rdb.Do(context.Background(), "QLESS", "put", "now", "p", "bind-restart", "r1", "K", "{}", "0")
	c := bindAndPop(t, q.Addr, "w-restart", "1", "bind-restart")
	c.Close()
	rdb.Close()
	q.Kill()
	q = StartQlessd(t, dir)
	rdb = redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer rdb.Close()
	waitState(t, rdb, "r1", "stalled", waitTimeout)
}
