package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// startTLSCluster starts size nodes that replicate over mutual TLS
// (tls-replication) with p's certificates, each serving TLS clients too.
func startTLSCluster(t *testing.T, size int, p *pki, extra ...string) *testCluster {
	t.Helper()
	c := &testCluster{t: t, extra: extra, pki: p}
	c.start(size)
	return c
}

// A cluster whose nodes talk over mutual TLS forms, elects, replicates, and
// relays a follower's clients (plain or TLS) to the leader's TLS port.
func TestTLSClusterReplicates(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	c := startTLSCluster(t, 3, p)
	l := c.leader(waitTimeout)
	ctx := context.Background()
	var follower *clusterNode
	for _, n := range c.nodes {
		if n != l {
			follower = n
		}
	}
	lc := client(l.addr())
	defer lc.Close()
	if err := lc.Do(ctx, "QLESS", "put", "now", "", "q", "on-leader", "K", "{}", "0").Err(); err != nil {
		t.Fatal(err)
	}
	fc := client(follower.addr())
	defer fc.Close()
	if err := fc.Set(ctx, "via-follower", "1", 0).Err(); err != nil {
		t.Fatalf("a write relayed from follower %s: %v", follower.id, err)
	}
	ftls := tlsClient(fmt.Sprintf("127.0.0.1:%d", follower.tlsPort), clientConfig(p.ca, p.client))
	defer ftls.Close()
	if err := ftls.Set(ctx, "via-follower-tls", "1", 0).Err(); err != nil {
		t.Fatalf("a write relayed from follower %s's TLS port: %v", follower.id, err)
	}
	c.sameStores()
	for _, n := range c.nodes {
		if out := n.proc.Output(); strings.Contains(out, "tls: ") {
			t.Errorf("node %s logged TLS errors:\n%s", n.id, out)
		}
	}
}

// A node whose certificate another CA signed cannot join: the leader
// refuses its transport and it refuses the leader's, so it never applies
// an entry, while the cluster carries on.
func TestTLSClusterWrongCANotJoining(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	c := startTLSCluster(t, 3, p)
	l := c.leader(waitTimeout)
	ctx := context.Background()
	lc := client(l.addr())
	defer lc.Close()
	if err := lc.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c.pki = nil
	n4 := c.addNode("--tls-port", fmt.Sprint(freePort(t)), "--tls-replication", "yes",
		"--tls-cert-file", p.file("foreign-node.crt"), "--tls-key-file", p.file("foreign-node.key"),
		"--tls-ca-cert-file", p.otherCAFile)
	if err := lc.Do(ctx, "RAFT", "ADD", n4.id, fmt.Sprintf("127.0.0.1:%d", n4.raft)).Err(); err != nil {
		t.Fatalf("RAFT ADD: %v", err)
	}
	// The leader keeps trying; give it time to, then look: n4 has
	// applied nothing, and the leader's log says why.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(l.proc.Output(), "certificate") {
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(l.proc.Output(), "certificate") {
		t.Errorf("the leader did not log a certificate error reaching n4:\n%s", l.proc.Output())
	}
	if st := status(n4); st == nil || st["applied_index"] != "0" {
		t.Errorf("n4 with a foreign CA applied entries: %v", st)
	}
	if err := lc.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Errorf("the cluster stopped taking writes: %v", err)
	}
}

// The failover test of cluster_failover_test.go, over tls-replication.
func TestTLSClusterFailover(t *testing.T) {
	t.Parallel()
	clusterFailover(t, startTLSCluster(t, 3, newPKI(t), failoverArgs()...))
}
