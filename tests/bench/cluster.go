package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// startCluster starts size qlessd nodes on loopback that bootstrap one
// cluster, each with the flags and fsync policy a single qlessd gets, and
// waits for a node that leads and serves writes: the returned server's
// addr is the leader's client address, its nodes the processes. It retries
// with other ports, as startServer does.
func startCluster(cfg *config, size int, fsync string) (*server, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var s *server
		if s, err = startClusterOnce(cfg, size, fsync); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func startClusterOnce(cfg *config, size int, fsync string) (*server, error) {
	ports, err := freePorts(2 * size) // clients' ports, then Raft's
	if err != nil {
		return nil, err
	}
	var peers []string
	for i := range size {
		peers = append(peers, fmt.Sprintf("n%d=127.0.0.1:%d", i+1, ports[size+i]))
	}
	c := &server{kind: "cluster"}
	for i := range size {
		dir, err := os.MkdirTemp("", "qlessd-bench-cluster-")
		if err != nil {
			c.stop()
			return nil, err
		}
		n := &server{kind: fmt.Sprintf("qlessd cluster node n%d", i+1), dir: dir, addr: fmt.Sprintf("127.0.0.1:%d", ports[i])}
		args := append(qlessdArgs(ports[i], dir, fsync),
			"--cluster-node-id", fmt.Sprintf("n%d", i+1), "--cluster-bind", fmt.Sprintf("127.0.0.1:%d", ports[size+i]),
			"--cluster-peers", strings.Join(peers, ","))
		args = append(args, cfg.clusterArgs...)
		if err := n.start(cfg.qlessdBin, args); err != nil {
			c.stop()
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	// RAFT STATUS, as a connection's first command, is answered by the
	// node itself, leader or not.
	for _, n := range c.nodes {
		if err := n.ready(15*time.Second, "RAFT", "STATUS"); err != nil {
			c.stop()
			return nil, err
		}
	}
	if c.addr, err = c.waitLeader(30 * time.Second); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// waitLeader waits for a node that leads and serves writes and returns the
// leader's client address as that node gives it.
func (c *server) waitLeader(timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		for _, n := range c.nodes {
			st := raftStatus(n.addr)
			if st["state"] == "leader" && st["serving_writes"] == "1" && st["leader_client_addr"] != "" {
				return st["leader_client_addr"], nil
			}
			select {
			case <-n.done:
				return "", fmt.Errorf("%s exited: %s", n.kind, strings.TrimSpace(n.output()))
			default:
			}
		}
		if time.Now().After(deadline) || stopping() {
			return "", fmt.Errorf("no node of the cluster served writes within %s", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stillLeads says why the node at the cluster's client address no longer
// leads, or "" when it does: clients of a cell that saw the leader change
// were relayed, or failed, part of the time.
func (c *server) stillLeads() string {
	if st := raftStatus(c.addr); st["state"] != "leader" || st["serving_writes"] != "1" {
		return fmt.Sprintf("the leader changed (%s now: state %q)", c.addr, st["state"])
	}
	return ""
}

// raftStatus is a node's RAFT STATUS as fields; empty when it does not answer.
func raftStatus(addr string) map[string]string {
	st := map[string]string{}
	c, err := dial(addr)
	if err != nil {
		return st
	}
	defer c.close()
	r, err := c.do("RAFT", "STATUS")
	if err != nil {
		return st
	}
	for _, line := range strings.Split(r.str, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			st[k] = v
		}
	}
	return st
}

// freePorts picks n distinct free loopback ports, holding each until all
// are picked.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// stopNodes stops a cluster's nodes side by side.
func (c *server) stopNodes() {
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		wg.Go(n.stop)
	}
	wg.Wait()
}

// clusterServer names a cluster of size nodes in results.
func clusterServer(size int) string { return fmt.Sprintf("cluster%d", size) }

// runCluster is the cluster part of a run: every pass, every round, each
// line its median round, with the cluster's jobs/s over the single node's.
// A cluster that cannot start ends the part with a note.
func runCluster(cfg *config, note func(string, ...any)) []*result {
	var results []*result
rounds:
	for round := 1; round <= cfg.rounds && !stopping(); round++ {
		if cfg.rounds > 1 {
			fmt.Fprintf(os.Stderr, "cluster round %d of %d\n", round, cfg.rounds)
		}
		for _, pass := range cfg.passes {
			if stopping() {
				break rounds
			}
			rs, err := runClusterPass(cfg, pass, round)
			if err != nil {
				note("cluster part ended: %s", firstLine(err.Error()))
				break rounds
			}
			results = append(results, rs...)
		}
	}
	results = medianRounds(results, cfg.rounds)
	setClusterRatios(results)
	sortResults(results)
	return results
}

// runClusterPass starts a qlessd alone and a cluster of cfg.cluster nodes,
// both fresh, with the pass's fsync policy, and runs the cluster cells on
// both through the native QLESS command, one after the other as runPass
// does: the cluster's clients talk to its leader.
func runClusterPass(cfg *config, pass string, round int) ([]*result, error) {
	single, err := startServer(cfg, "qlessd", pass)
	if err != nil {
		return nil, err
	}
	defer single.stop()
	cl, err := startCluster(cfg, cfg.cluster, pass)
	if err != nil {
		return nil, fmt.Errorf("cluster of %d: %w", cfg.cluster, err)
	}
	defer cl.stop()
	var sessions []*session
	for _, srv := range []*server{single, cl} {
		w := &way{server: "qlessd", name: "native"}
		if srv == cl {
			w.server = clusterServer(cfg.cluster)
		}
		if err := w.prepare(srv.addr); err != nil {
			return nil, fmt.Errorf("%s: %w", w.label(), err)
		}
		sessions = append(sessions, &session{cfg: cfg, w: w, srv: srv, pass: pass, pings: true})
	}
	return runCells(sessions, pass, round, cfg.clusterConc, cfg.clusterWork), nil
}

// setClusterRatios sets each cluster line's jobs/s over the single node's
// on the same cell.
func setClusterRatios(results []*result) {
	type key struct {
		pass, workload string
		conc           int
	}
	single := map[key]*result{}
	for _, r := range results {
		if r.Server == "qlessd" {
			single[key{r.Pass, r.Workload, r.Concurrency}] = r
		}
	}
	for _, r := range results {
		one := single[key{r.Pass, r.Workload, r.Concurrency}]
		if r.Server == "qlessd" || r.JobsPerSec == 0 || one == nil || one.JobsPerSec == 0 {
			continue
		}
		v := r.JobsPerSec / one.JobsPerSec
		r.OverOneNode = &v
	}
}
