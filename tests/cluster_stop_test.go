package tests

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// stopBound is how long a node may take to exit after SIGTERM on a loaded
// machine; a hang is forever.
const stopBound = waitTimeout

// TestClusterStopsWhileTakingLeadership stops nodes whose new leader's
// barrier never answers (a test hook, as a barrier queued while raft shut
// down never did): SIGTERM must still end every node, the one caught
// taking the lead included, instead of waiting on the barrier for ever.
func TestClusterStopsWhileTakingLeadership(t *testing.T) {
	t.Parallel()
	c := startClusterEnv(t, []string{"QLESSD_TEST_HOLD_BARRIER=1"}, 3)
	var l *clusterNode
	deadline := time.Now().Add(60 * time.Second)
	for l == nil && time.Now().Before(deadline) {
		for _, n := range c.nodes {
			if st := status(n); st != nil && st["state"] == "leader" {
				l = n
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if l == nil {
		t.Fatal("no node was elected")
	}
	t.Logf("%s elected", l.id)
	if st := status(l); st["serving_writes"] != "0" {
		t.Fatalf("the leader serves writes although its barrier is held: %v", st)
	}
	for _, n := range c.nodes {
		waitStarted(t, n)
		t.Logf("%s started", n.id)
	}
	// The leader first, alone, then the others at once.
	stopWithin(t, l)
	for _, n := range c.nodes {
		if n != l {
			n.proc.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, n := range c.nodes {
		stopWithin(t, n)
	}
}

// TestClusterStopsUnderLoad sends SIGTERM to every node at once while
// clients write through all of them: each exits.
func TestClusterStopsUnderLoad(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	c.leader(waitTimeout)
	for _, n := range c.nodes {
		waitStarted(t, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wrote := make(chan int, 64)
	for i, n := range c.nodes {
		for w := range 3 {
			go func() {
				cl := client(n.addr())
				defer cl.Close()
				for j := 0; ctx.Err() == nil; j++ {
					if cl.Do(ctx, "QLESS", "put", "now", "", "q", fmt.Sprintf("j%d-%d-%d", i, w, j), "K", "{}", "0").Err() == nil {
						select {
						case wrote <- j:
						default:
						}
					}
				}
			}()
		}
	}
	for range 50 {
		select {
		case <-wrote:
		case <-time.After(60 * time.Second):
			t.Fatal("no write went through")
		}
	}
	for _, n := range c.nodes {
		n.proc.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, n := range c.nodes {
		stopWithin(t, n)
	}
}

// waitStarted waits until n has started (its HTTP listener, served last,
// answers), and so handles SIGTERM itself.
func waitStarted(t *testing.T, n *clusterNode) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := hc.Get("http://" + n.http + "/metrics"); err == nil {
			resp.Body.Close()
			time.Sleep(100 * time.Millisecond) // the signal handler goes in right after
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not start", n.id)
}

// stopWithin sends n SIGTERM and waits for it to exit.
func stopWithin(t *testing.T, n *clusterNode) {
	t.Helper()
	start := time.Now()
	n.proc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.proc.done:
		t.Logf("%s exited (%v) %v after SIGTERM", n.id, n.proc.cmd.ProcessState, time.Since(start).Round(time.Millisecond))
		if !n.proc.cmd.ProcessState.Exited() {
			t.Errorf("%s did not stop itself: %v\n%s", n.id, n.proc.cmd.ProcessState, n.proc.Output())
		}
	case <-time.After(stopBound):
		t.Errorf("%s still runs %v after SIGTERM:\n%s", n.id, stopBound, n.proc.Output())
		n.proc.Kill()
	}
}
