package tests

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testCluster is qlessd nodes on loopback ports, started by the test.
type testCluster struct {
	t     *testing.T
	nodes []*clusterNode
	extra []string
	env   []string // test hooks (KEY=value) in each node's environment
	pki   *pki     // set: the nodes serve TLS and replicate over it (tls_cluster_test.go)
}

type clusterNode struct {
	id         string
	dir        string
	port, raft int
	tlsPort    int    // with a pki
	http       string // its HTTP listener (metrics), host:port
	args       []string
	proc       *Proc
}

func (n *clusterNode) addr() string { return fmt.Sprintf("127.0.0.1:%d", n.port) }

// startCluster starts size nodes that bootstrap one cluster; extra flags go
// to each.
func startCluster(t *testing.T, size int, extra ...string) *testCluster {
	t.Helper()
	return startClusterEnv(t, nil, size, extra...)
}

// startClusterEnv is startCluster with env (test hooks, KEY=value) in each
// node's environment, its nodes started later included: the test can run
// beside others, which t.Setenv would forbid.
func startClusterEnv(t *testing.T, env []string, size int, extra ...string) *testCluster {
	t.Helper()
	c := &testCluster{t: t, extra: extra, env: env}
	c.start(size)
	return c
}

func (c *testCluster) start(size int) {
	t := c.t
	var peers []string
	for i := range size {
		n := &clusterNode{id: fmt.Sprintf("n%d", i+1), dir: t.TempDir(), port: freePort(t), raft: freePort(t)}
		c.nodes = append(c.nodes, n)
		peers = append(peers, fmt.Sprintf("%s=127.0.0.1:%d", n.id, n.raft))
	}
	for _, n := range c.nodes {
		n.args = c.nodeArgs(n, "--cluster-peers", strings.Join(peers, ","))
		n.proc = c.startNode(n)
	}
}

func (c *testCluster) nodeArgs(n *clusterNode, more ...string) []string {
	n.http = fmt.Sprintf("127.0.0.1:%d", freePort(c.t))
	args := []string{"--port", strconv.Itoa(n.port), "--dir", n.dir, "--loglevel", "warning", "--http-addr", n.http,
		"--cluster-node-id", n.id, "--cluster-bind", fmt.Sprintf("127.0.0.1:%d", n.raft)}
	args = append(args, modeArgs()...)
	if c.pki != nil {
		n.tlsPort = freePort(c.t)
		args = append(args, c.pki.serverArgs(n.tlsPort, "--tls-replication", "yes")...)
	}
	if !strictTiming() {
		// A loaded machine can hold a node back past the heartbeat
		// timeout, and leaders changed under the tests' writes; the
		// soak keeps the default (and the failover test 500 ms).
		args = append(args, "--cluster-heartbeat-timeout", "2000")
	}
	args = append(args, c.extra...)
	return append(args, more...)
}

func (c *testCluster) startNode(n *clusterNode) *Proc {
	p := startProcEnv(c.t, n.dir, c.env, binary(c.t), n.args...)
	c.t.Cleanup(func() { p.Stop() })
	return p
}

// addNode starts a node that belongs to no cluster yet.
func (c *testCluster) addNode(more ...string) *clusterNode {
	n := &clusterNode{id: fmt.Sprintf("n%d", len(c.nodes)+1), dir: c.t.TempDir(), port: freePort(c.t), raft: freePort(c.t)}
	n.args = c.nodeArgs(n, more...)
	n.proc = c.startNode(n)
	c.nodes = append(c.nodes, n)
	return n
}

// restart starts a stopped node again on its data.
func (c *testCluster) restart(n *clusterNode) { n.proc = c.startNode(n) }

// status is a node's RAFT STATUS as a map; nil when it does not answer.
// It is the connection's first command, so a follower answers itself
// rather than relaying it (go-redis would send HELLO first).
func status(n *clusterNode) map[string]string {
	if n.proc.Exited() {
		return nil
	}
	s, err := rawCommand(n.addr(), "RAFT", "STATUS")
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// rawCommand sends one command as a connection's first and returns its
// bulk or status reply.
func rawCommand(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	req := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	head = strings.TrimRight(head, "\r\n")
	switch {
	case strings.HasPrefix(head, "$"):
		size, err := strconv.Atoi(head[1:])
		if err != nil || size < 0 {
			return "", fmt.Errorf("reply %q", head)
		}
		body := make([]byte, size+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return "", err
		}
		return string(body[:size]), nil
	case strings.HasPrefix(head, "+"):
		return head[1:], nil
	}
	return "", fmt.Errorf("reply %q", head)
}

// leader waits up to timeout for a live node that leads and serves writes.
func (c *testCluster) leader(timeout time.Duration) *clusterNode {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, n := range c.nodes {
			if st := status(n); st != nil && st["serving_writes"] == "1" {
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("no node leads the cluster after %v", timeout)
	return nil
}

// caughtUp waits until n's store holds what the leader's holds: the last
// log entry applied to the store (store_index; raft's applied_index runs
// ahead of the store) is the leader's, and raft applied what the leader
// committed.
func (c *testCluster) caughtUp(n *clusterNode, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		l := c.leader(timeout)
		lst := status(l)
		want, _ := strconv.ParseUint(lst["commit_index"], 10, 64)
		wantStore, _ := strconv.ParseUint(lst["store_index"], 10, 64)
		if st := status(n); st != nil {
			got, _ := strconv.ParseUint(st["applied_index"], 10, 64)
			gotStore, _ := strconv.ParseUint(st["store_index"], 10, 64)
			if got >= want && gotStore >= wantStore {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("node %s did not catch up with the leader in %v: %v", n.id, timeout, status(n))
}

func client(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: time.Second, ReadTimeout: 5 * time.Second})
}

// sameStores waits until every live node has applied what the leader
// committed and checks that they hold the same store (RAFT DIGEST).
func (c *testCluster) sameStores() {
	c.t.Helper()
	if digests, same := c.digestsAgree(50); !same {
		c.t.Fatalf("the nodes' stores differ: %v", digests)
	}
}

// digestsAgree asks every running node, caught up, for its RAFT DIGEST
// until they agree, up to tries times (a node may still be applying what
// the others hold); it returns the last digests and whether they agreed.
func (c *testCluster) digestsAgree(tries int) (map[string]string, bool) {
	c.t.Helper()
	var digests map[string]string
	for range tries {
		digests = map[string]string{}
		distinct := map[string]bool{}
		for _, n := range c.nodes {
			if n.proc.Exited() {
				continue
			}
			c.caughtUp(n, waitTimeout)
			d, err := rawCommand(n.addr(), "RAFT", "DIGEST")
			if err != nil {
				c.t.Fatalf("RAFT DIGEST on %s: %v", n.id, err)
			}
			digests[n.id] = d
			distinct[d] = true
		}
		if len(distinct) == 1 {
			return digests, true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return digests, false
}
