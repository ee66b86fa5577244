package tests

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGroupCommitKillRestart runs 50 concurrent writers against qlessd with
// appendfsync always, kills it with SIGKILL while they write, restarts it on
// the same directory and checks that every write it acknowledged is there.
func TestGroupCommitKillRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir, "--appendfsync", "always")
	const writers, killAfter = 50, 3000
	ctx := context.Background()
	var acked atomic.Int64
	var killing atomic.Bool
	var killOnce sync.Once
	sets := make([][]int, writers)   // acknowledged SET numbers per writer
	pushed := make([]int64, writers) // last acknowledged RPUSH reply per writer
	failed := func(err error) {
		if !killing.Load() {
			t.Errorf("write failed before the kill: %v", err)
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: q.Addr, PoolSize: 1, MaxRetries: -1})
			defer c.Close()
			for n := 1; ; n++ {
				if err := c.Set(ctx, fmt.Sprintf("w%d:%d", w, n), "v"+strconv.Itoa(n), 0).Err(); err != nil {
					failed(err)
					return
				}
				sets[w] = append(sets[w], n)
				v, err := c.RPush(ctx, fmt.Sprintf("list%d", w), n).Result()
				if err != nil {
					failed(err)
					return
				}
				pushed[w] = v
				if acked.Add(2) >= killAfter {
					killOnce.Do(func() { killing.Store(true); q.Kill() })
				}
			}
		}()
	}
	wg.Wait()
	if !killing.Load() {
		t.Fatalf("writers stopped before the kill after %d acknowledged writes:\n%s", acked.Load(), q.Output())
	}

	q2 := StartQlessd(t, dir, "--appendfsync", "always")
	c := redis.NewClient(&redis.Options{Addr: q2.Addr})
	defer c.Close()
	checked := 0
	for w := range writers {
		for _, n := range sets[w] {
			got, err := c.Get(ctx, fmt.Sprintf("w%d:%d", w, n)).Result()
			if err != nil || got != "v"+strconv.Itoa(n) {
				t.Errorf("acknowledged SET w%d:%d lost after restart: %q %v", w, n, got, err)
			}
			checked++
		}
		got, err := c.LRange(ctx, fmt.Sprintf("list%d", w), 0, -1).Result()
		if err != nil || int64(len(got)) < pushed[w] {
			t.Errorf("list%d has %d elements (%v) after restart, but RPUSH acknowledged %d", w, len(got), err, pushed[w])
		}
		for i := range min(int64(len(got)), pushed[w]) {
			if got[i] != strconv.FormatInt(i+1, 10) {
				t.Errorf("list%d[%d] = %q after restart, want %d", w, i, got[i], i+1)
			}
		}
		checked += int(pushed[w])
	}
	t.Logf("%d acknowledged writes before SIGKILL; %d checked after restart", acked.Load(), checked)
}
