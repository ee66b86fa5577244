package tests

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"net"
	"testing"
	"time"

	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/store"
)

func TestMultiDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range [][]string{
		{"EXEC"}, {"DISCARD"}, {"MULTI", "x"}, {"UNWATCH"},
		{"MULTI"}, {"SET", "a", "1"}, {"GET", "a"}, {"PING"}, {"ECHO", "e"}, {"EXEC"},
		{"MULTI"}, {"MULTI"}, {"WATCH", "a"}, {"SET", "b", "2"}, {"EXEC"},
		// syntax errors while queueing abort the transaction
		{"MULTI"}, {"SET", "a", "9"}, {"NOSUCHCMD", "x"}, {"EXEC"}, {"GET", "a"},
		{"MULTI"}, {"SET", "a", "9"}, {"GET"}, {"EXEC"}, {"GET", "a"},
		// runtime errors do not stop the others
		{"MULTI"}, {"SET", "a", "3"}, {"SELECT", "1000"}, {"PING", "x", "y"}, {"SET", "a", "4"}, {"GET", "a"}, {"EXEC"},
		// SELECT inside MULTI affects what follows and stays
		{"MULTI"}, {"SELECT", "2"}, {"SET", "in2", "x"}, {"EXEC"}, {"GET", "in2"}, {"SELECT", "0"}, {"GET", "in2"},
		{"MULTI"}, {"SET", "d", "1"}, {"DISCARD"}, {"GET", "d"}, {"EXEC"},
		{"MULTI"}, {"EXEC"},
		{"MULTI"}, {"UNWATCH"}, {"EXEC"},
		// SAVE and SHUTDOWN are refused inside MULTI, which they abort
		{"MULTI"}, {"SET", "s", "1"}, {"SAVE"}, {"EXEC"}, {"GET", "s"},
		{"MULTI"}, {"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}, {"DISCARD"}, {"PING"},
	} {
		p.Same(t, c...)
	}
}

func TestWatchDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	other := dialDuo(t, p)
	steps := []struct {
		other bool
		args  []string
	}{
		// another client changes a watched key: EXEC is refused (*-1)
		{false, []string{"SET", "k", "1"}},
		{false, []string{"WATCH", "k"}},
		{true, []string{"SET", "k", "2"}},
		{false, []string{"MULTI"}},
		{false, []string{"SET", "k", "3"}},
		{false, []string{"EXEC"}},
		{false, []string{"GET", "k"}},
		// untouched: EXEC runs
		{false, []string{"WATCH", "k", "j"}},
		{true, []string{"SET", "unrelated", "x"}},
		{false, []string{"MULTI"}},
		{false, []string{"SET", "k", "4"}},
		{false, []string{"EXEC"}},
		// EXEC unwatched: a later change does not matter
		{true, []string{"SET", "k", "5"}},
		{false, []string{"MULTI"}},
		{false, []string{"GET", "k"}},
		{false, []string{"EXEC"}},
		// the client's own change breaks its watch too
		{false, []string{"WATCH", "k"}},
		{false, []string{"SET", "k", "6"}},
		{false, []string{"MULTI"}},
		{false, []string{"GET", "k"}},
		{false, []string{"EXEC"}},
		// UNWATCH and DISCARD forget watches
		{false, []string{"WATCH", "k"}},
		{false, []string{"UNWATCH"}},
		{true, []string{"SET", "k", "7"}},
		{false, []string{"MULTI"}},
		{false, []string{"GET", "k"}},
		{false, []string{"EXEC"}},
		{false, []string{"WATCH", "k"}},
		{false, []string{"MULTI"}},
		{false, []string{"DISCARD"}},
		{true, []string{"SET", "k", "8"}},
		{false, []string{"MULTI"}},
		{false, []string{"GET", "k"}},
		{false, []string{"EXEC"}},
		// deleting, flushing and watching a missing key that appears
		{false, []string{"WATCH", "k"}},
		{true, []string{"DEL", "k"}},
		{false, []string{"MULTI"}},
		{false, []string{"EXEC"}},
		{false, []string{"WATCH", "missing"}},
		{true, []string{"SET", "missing", "now"}},
		{false, []string{"MULTI"}},
		{false, []string{"EXEC"}},
		{false, []string{"WATCH", "k2"}},
		{true, []string{"FLUSHALL"}},
		{false, []string{"MULTI"}},
		{false, []string{"EXEC"}},
		// a key in another database of the same name is another key
		{false, []string{"SET", "k", "1"}},
		{false, []string{"WATCH", "k"}},
		{true, []string{"SELECT", "3"}},
		{true, []string{"SET", "k", "db3"}},
		{true, []string{"SELECT", "0"}},
		{false, []string{"MULTI"}},
		{false, []string{"GET", "k"}},
		{false, []string{"EXEC"}},
		// a failed (EXECABORT) transaction also unwatches
		{false, []string{"WATCH", "k"}},
		{false, []string{"MULTI"}},
		{false, []string{"NOSUCH"}},
		{false, []string{"EXEC"}},
		{true, []string{"SET", "k", "9"}},
		{false, []string{"MULTI"}},
		{false, []string{"EXEC"}},
	}
	for _, s := range steps {
		if s.other {
			other.same(t, 1, s.args...)
		} else {
			p.Same(t, s.args...)
		}
	}
}

// TestWatchExpiry starts a server in-process to give a watched key a short
// expiry through the store (EXPIRE belongs to another command group): its
// expiry must break the WATCH, as in Redis 7.0.
func TestWatchExpiry(t *testing.T) {
	t.Parallel()
	srv := startInProcess(t, server.Config{})
	c := DialRaw(t, srv.Addr().(*net.TCPAddr).String())
	setExpiring := func(key string, in time.Duration) {
		srv.Store().Update(func(tx *store.Tx) error {
			tx.SetString(key, "v", time.Now().Add(in).UnixMilli(), false)
			return nil
		})
	}
	expect := func(want string, args ...string) {
		t.Helper()
		if got := c.Do(t, args...); got != want {
			t.Fatalf("%v: %q, want %q", args, got, want)
		}
	}
	// Long enough to be alive still when WATCH comes on a slow machine:
	// a key already expired when watched does not abort EXEC (Redis 7.0).
	setExpiring("e", time.Second)
	expect("+OK\r\n", "WATCH", "e")
	waitUntil(t, func() bool { return c.Do(t, "EXISTS", "e") == ":0\r\n" })
	expect("+OK\r\n", "MULTI")
	expect("+QUEUED\r\n", "PING")
	expect("*-1\r\n", "EXEC")

	// A watched key that is still alive at EXEC does not abort.
	setExpiring("long", time.Hour)
	expect("+OK\r\n", "WATCH", "long")
	expect("+OK\r\n", "MULTI")
	expect("+QUEUED\r\n", "PING")
	expect("*1\r\n+PONG\r\n", "EXEC")
}

// waitUntil polls cond until it holds, failing after waitTimeout.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached in %v", waitTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatchOptimisticCounter: clients increment one counter with
// WATCH/GET/MULTI/SET/EXEC and retry when EXEC is refused; no increment
// may be lost.
func TestWatchOptimisticCounter(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, PoolSize: 32})
	defer rdb.Close()
	const workers, each = 16, 40
	var wg sync.WaitGroup
	var retries atomic.Int64
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					err := rdb.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, "counter").Int()
						if err != nil && err != redis.Nil {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, "counter", strconv.Itoa(n+1), 0)
							return nil
						})
						return err
					}, "counter")
					if err == redis.TxFailedErr {
						retries.Add(1)
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := rdb.Get(ctx, "counter").Int()
	if err != nil || got != workers*each {
		t.Fatalf("counter = %d, %v; want %d", got, err, workers*each)
	}
	t.Logf("%d increments, %d EXECs refused and retried", got, retries.Load())
}
