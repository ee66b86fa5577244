package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestClusterDeposedLeaderServesNoStaleRead stops the leader (SIGSTOP)
// until another node leads and acknowledged a write, opens connections to
// the stopped node and sends reads on them (the kernel queues them), then
// resumes it. Its step-down is held back 5 s (a test hook: on a loaded
// machine it took 11-36 ms, and reads were served meanwhile), so the
// reads are served while it still takes itself for the leader. None may
// answer from its store: its read lease ran out while it was stopped, so
// it must confirm with a majority, which fails, and refuse them.
func TestClusterDeposedLeaderServesNoStaleRead(t *testing.T) {
	t.Parallel()
	c := startClusterEnv(t, []string{"QLESSD_TEST_STEPDOWN_DELAY_MS=5000"}, 3)
	old := c.leader(waitTimeout)
	ctx := context.Background()
	lc := client(old.addr())
	if err := lc.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Do(ctx, "QLESS", "put", "now", "", "q", "j", "K", `{"v":"before"}`, "0").Err(); err != nil {
		t.Fatal(err)
	}
	lc.Close()
	for _, n := range c.nodes {
		c.caughtUp(n, waitTimeout)
	}

	old.proc.cmd.Process.Signal(syscall.SIGSTOP)
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			old.proc.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	var nl *clusterNode
	deadline := time.Now().Add(60 * time.Second)
	for nl == nil && time.Now().Before(deadline) {
		for _, n := range c.nodes {
			if n == old {
				continue
			}
			if st := status(n); st != nil && st["serving_writes"] == "1" {
				nl = n
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if nl == nil {
		t.Fatal("no other node leads with the leader stopped")
	}
	nc := client(nl.addr())
	defer nc.Close()
	if err := nc.Set(ctx, "k", "after", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := nc.Do(ctx, "QLESS", "put", "now", "", "q", "j", "K", `{"v":"after"}`, "0").Err(); err != nil {
		t.Fatal(err)
	}

	// Reads queued in the stopped node's sockets: plain, in a pipeline,
	// through QLESS, in MULTI, and after HELLO as go-redis opens.
	reads := map[string][]string{
		"GET":       {cmdline("GET", "k")},
		"pipelined": {cmdline("PING"), cmdline("GET", "k"), cmdline("GET", "k")},
		"QLESS get": {cmdline("QLESS", "get", "now", "j")},
		"EVAL":      {cmdline("EVAL", "return redis.call('get', KEYS[1])", "1", "k")},
		"MULTI":     {cmdline("MULTI"), cmdline("GET", "k"), cmdline("EXEC")},
		"HELLO":     {cmdline("HELLO", "2"), cmdline("GET", "k")},
	}
	conns := map[string]net.Conn{}
	for name, lines := range reads {
		conn, err := net.DialTimeout("tcp", old.addr(), 5*time.Second)
		if err != nil {
			t.Fatalf("connect to the stopped node: %v", err)
		}
		defer conn.Close()
		if _, err := conn.Write([]byte(strings.Join(lines, ""))); err != nil {
			t.Fatal(err)
		}
		conns[name] = conn
	}
	resume()
	// What each connection gets until it closes, or for 15 s: a relayed
	// one stays open.
	var mu sync.Mutex
	var wg sync.WaitGroup
	got := map[string]string{}
	until := time.Now().Add(15 * time.Second)
	for name, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.SetReadDeadline(until)
			all, _ := io.ReadAll(bufio.NewReader(conn))
			mu.Lock()
			got[name] = string(all)
			mu.Unlock()
		}()
	}
	wg.Wait()
	const refused = "-TRYAGAIN this node could not confirm it still leads the cluster"
	for name, reply := range got {
		t.Logf("%s: %q", name, reply)
		if strings.Contains(reply, "before") {
			t.Errorf("%s on the deposed leader answered from before the new leader's acknowledged write: %q", name, reply)
		} else if !strings.Contains(reply, refused) {
			t.Errorf("%s on the deposed leader: %q, want the read refused (%s...)", name, reply, refused)
		}
	}
	if st := status(old); st == nil || st["reads_refused"] == "0" {
		t.Errorf("the deposed leader counts no refused read: %v", st)
	}
	c.sameStores()
}

// cmdline is a command as a RESP array.
func cmdline(args ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		s += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	return s
}
