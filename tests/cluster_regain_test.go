package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterLeadWonBackServesAfterANewBarrier makes a node lose the lead
// and win it back before it noticed: raft's leadership signal keeps only
// the latest change, so the node hears "leading" once, for two terms. X
// takes the lead and is held (QLESSD_TEST_LEAD_GATE) after its barrier,
// with nothing served yet; stopped, it loses the lead to Z, which commits
// a write with X while the third node is stopped; then leaders are
// stopped in turn until X wins the lead back. Released, X must not serve
// on the barrier of its first term: it logs so, serves once a barrier of
// the new term is applied, and holds the write and the others' store.
func TestClusterLeadWonBackServesAfterANewBarrier(t *testing.T) {
	t.Parallel()
	gates := t.TempDir()
	c := startClusterEnv(t, []string{"QLESSD_TEST_LEAD_GATE=" + gates}, 3)
	a := c.leader(20 * time.Second)
	gate := func(n *clusterNode) string { return filepath.Join(gates, n.id) }
	signal := func(n *clusterNode, s syscall.Signal) { n.proc.cmd.Process.Signal(s) }
	t.Cleanup(func() {
		for _, n := range c.nodes {
			signal(n, syscall.SIGCONT)
		}
	})
	for _, n := range c.nodes {
		if n != a {
			if err := os.WriteFile(gate(n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	signal(a, syscall.SIGSTOP)
	x := c.raftLeader(a)
	signal(a, syscall.SIGCONT)
	c.waitState(a, "follower") // not taken for a leader by raftLeader below
	t.Logf("%s took the lead from %s and is held", x.id, a.id)

	signal(x, syscall.SIGSTOP)
	z := c.raftLeader(x)
	os.Remove(gate(z))
	z = c.leader(waitTimeout)
	var w *clusterNode
	for _, n := range c.nodes {
		if n != x && n != z {
			w = n
		}
	}
	signal(w, syscall.SIGSTOP)
	signal(x, syscall.SIGCONT)
	zc := client(z.addr())
	defer zc.Close()
	ctx := context.Background()
	if err := zc.Set(ctx, "k", "while "+x.id+" was held", 0).Err(); err != nil {
		t.Fatalf("write through %s, committed with %s: %v", z.id, x.id, err)
	}
	t.Logf("%s took the lead and committed a write with %s", z.id, x.id)

	// Resumed, W may still read Z's appends from its socket and hold the
	// write: then either may win. Stop whoever wins until X does.
	signal(w, syscall.SIGCONT)
	c.waitState(w, "follower")
	for tries := 1; ; tries++ {
		l := c.raftLeader()
		if l == x {
			break
		}
		if tries > 20 {
			t.Fatalf("%s did not win the lead back in 20 elections", x.id)
		}
		signal(l, syscall.SIGSTOP)
		c.raftLeader(l)
		signal(l, syscall.SIGCONT)
		c.waitState(l, "follower")
	}
	if st := status(x); st["serving_writes"] != "0" {
		t.Fatalf("%s serves while held: %v", x.id, st)
	}
	os.Remove(gate(x))
	const logged = "lost the lead and won it back while taking it"
	for deadline := time.Now().Add(waitTimeout); !strings.Contains(x.proc.Output(), logged); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q in %v:\n%s", x.id, logged, waitTimeout, x.proc.Output())
		}
	}
	if l := c.leader(waitTimeout); l != x {
		t.Fatalf("%s serves, want %s", l.id, x.id)
	}
	signal(z, syscall.SIGCONT)
	xc := client(x.addr())
	defer xc.Close()
	if v, err := xc.Get(ctx, "k").Result(); err != nil || v != "while "+x.id+" was held" {
		t.Fatalf("GET k on %s: %q %v", x.id, v, err)
	}
	if err := xc.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c.sameStoresKeyByKey()
}

// waitState waits until raft's state on n is state.
func (c *testCluster) waitState(n *clusterNode, state string) {
	c.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for st := status(n); st == nil || st["state"] != state; st = status(n) {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s is not %s after %v: %v", n.id, state, waitTimeout, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// raftLeader waits for a node that raft made leader, serving or not,
// among those not excluded.
func (c *testCluster) raftLeader(excluded ...*clusterNode) *clusterNode {
	c.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
	nodes:
		for _, n := range c.nodes {
			for _, e := range excluded {
				if n == e {
					continue nodes
				}
			}
			if st := status(n); st != nil && st["state"] == "leader" {
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("no node but %d excluded took the lead in %v", len(excluded), waitTimeout)
	return nil
}
