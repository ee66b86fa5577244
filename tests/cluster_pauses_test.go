package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterPauses is how many pauses TestClusterPausesKeepStoresEqual
// makes: a few in the suite, QLESSD_CLUSTER_PAUSES=200 in make soak.
func clusterPauses() int {
	if n, err := strconv.Atoi(os.Getenv("QLESSD_CLUSTER_PAUSES")); err == nil && n > 0 {
		return n
	}
	return 6
}

// clusterHeartbeat is the nodes' heartbeat timeout (nodeArgs).
func clusterHeartbeat() time.Duration {
	if strictTiming() {
		return time.Second // the default
	}
	return 2 * time.Second
}

// TestClusterPausesKeepStoresEqual stops (SIGSTOP) and resumes leaders and
// followers at random, for random times around the heartbeat timeout,
// while producers and workers go through every node; every few pauses
// the load stops and every node's store must be the leader's, key by key.
// The nodes check their stores against the leader's every 500 ms
// meanwhile (digest.go): none may find a difference. QLESSD_CLUSTER_SEED
// replays a run.
func TestClusterPausesKeepStoresEqual(t *testing.T) {
	t.Parallel()
	c := startClusterEnv(t, []string{"QLESSD_TEST_DIGEST_EVERY_MS=500"}, 3, "--appendfsync", "always")
	keepCompletedJobs(t, c)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("QLESSD_CLUSTER_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("QLESSD_CLUSTER_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	pauses := clusterPauses()
	start := time.Now()
	var put, completed []string
	round, changes := 0, 0
	for done := 0; done < pauses; round++ {
		w := newClusterLoad(c, round)
		w.until(100)
		for i := 0; i < 5 && done < pauses; i, done = i+1, done+1 {
			before := c.leader(waitTimeout)
			n := c.nodes[rng.IntN(len(c.nodes))]
			if rng.IntN(2) == 0 {
				n = before
			}
			// From a blip to two and a half heartbeat timeouts: a
			// leader frozen past one is deposed.
			d := 50*time.Millisecond + time.Duration(rng.Int64N(int64(5*clusterHeartbeat()/2)))
			n.proc.cmd.Process.Signal(syscall.SIGSTOP)
			time.Sleep(d) // the fault itself: how long the node is frozen
			n.proc.cmd.Process.Signal(syscall.SIGCONT)
			w.until(w.acked.Load() + 50)
			if c.leader(30*time.Second) != before {
				changes++
			}
			c.noDigestDiffered(done+1, seed)
		}
		p, d := w.stop()
		put, completed = append(put, p...), append(completed, d...)
		c.sameStoresKeyByKey()
		t.Logf("after %d pauses (%d changes of leader): %d puts and %d completions acknowledged", done, changes, len(put), len(completed))
	}
	t.Logf("%d pauses, %d of them followed by a change of leader, in %v (seed %d)", pauses, changes,
		time.Since(start).Round(time.Second), seed)
	// Tens of thousands of jobs are read back in one pipeline: more than
	// client's 5 s per read on a loaded machine (the 200-pause run timed
	// out there).
	cl := redis.NewClient(&redis.Options{Addr: c.leader(waitTimeout).addr(), Protocol: 2, PoolSize: 1, MaxRetries: -1,
		ReadTimeout: waitTimeout})
	defer cl.Close()
	checkJobs(t, cl, round, put, completed)
	checkDoneOnce(t, cl, completed)
	c.noDigestDiffered(pauses, seed)
	checked := 0
	for _, n := range c.nodes {
		m, _ := strconv.Atoi(status(n)["digest_matches"])
		checked += m
	}
	t.Logf("%d digests of the leader's store matched by followers, none differed, no store re-installed", checked)
}

// noDigestDiffered fails the test as soon as a node has found its store
// differing from the leader's at the same log index, or has re-installed
// the leader's snapshot (heal.go): a heal is a safety net that would hide
// the divergence the pause caused, so the test stops at the pause that
// made one, naming it and the seed that replays the run.
func (c *testCluster) noDigestDiffered(pause int, seed uint64) {
	c.t.Helper()
	for _, n := range c.nodes {
		st := status(n)
		// A node just resumed may not answer within 2 s on a loaded machine.
		for deadline := time.Now().Add(waitTimeout); st == nil && time.Now().Before(deadline); st = status(n) {
			time.Sleep(100 * time.Millisecond)
		}
		if st == nil {
			c.t.Fatalf("pause %d: %s answers no RAFT STATUS in %v", pause, n.id, waitTimeout)
		}
		if st["digest_mismatches"] != "0" || st["store_reinstalls"] != "0" {
			c.t.Fatalf("pause %d (QLESSD_CLUSTER_SEED=%d): %s found its store differing from the leader's "+
				"(digest_mismatches %s, store_reinstalls %s):\n%s", pause, seed, n.id, st["digest_mismatches"],
				st["store_reinstalls"], n.proc.Output())
		}
	}
}

// sameStoresKeyByKey is sameStores, naming the keys that differ when
// the stores do.
func (c *testCluster) sameStoresKeyByKey() {
	c.t.Helper()
	digests, same := c.digestsAgree(100)
	if same {
		return
	}
	l := c.leader(waitTimeout)
	want := localDump(c.t, l)
	for _, n := range c.nodes {
		if n == l {
			continue
		}
		got := localDump(c.t, n)
		var diff []string
		for k, v := range want {
			if got[k] != v {
				diff = append(diff, fmt.Sprintf("%s: leader %q, %s %q", k, short(v), n.id, short(got[k])))
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				diff = append(diff, fmt.Sprintf("%s: only on %s %q", k, n.id, short(v)))
			}
		}
		sort.Strings(diff)
		if len(diff) > 20 {
			diff = append(diff[:20], fmt.Sprintf("... %d more", len(diff)-20))
		}
		if len(diff) > 0 {
			c.t.Errorf("%s's store differs from leader %s's (%d keys there):\n%s", n.id, l.id, len(want), strings.Join(diff, "\n"))
		}
	}
	c.t.Fatalf("the nodes' stores differ: %v", digests)
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// localDump reads every key of n's own store, as TYPE and DUMP: a
// connection opened with RAFT is served by the node itself.
func localDump(t *testing.T, n *clusterNode) map[string]string {
	t.Helper()
	cl := redis.NewClient(&redis.Options{Addr: n.addr(), Protocol: 2, PoolSize: 1, MaxRetries: -1, ReadTimeout: 30 * time.Second,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := net.DialTimeout(network, addr, 5*time.Second)
			if err != nil {
				return nil, err
			}
			if _, err := conn.Write([]byte(cmdline("RAFT", "STATUS"))); err != nil {
				return nil, err
			}
			r := bufio.NewReader(conn)
			head, err := r.ReadString('\n')
			if err != nil {
				return nil, err
			}
			size, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
			if _, err := io.CopyN(io.Discard, r, int64(size+2)); err != nil {
				return nil, err
			}
			return conn, nil
		}})
	defer cl.Close()
	ctx := context.Background()
	keys, err := cl.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("KEYS on %s: %v", n.id, err)
	}
	out := map[string]string{}
	for _, k := range keys {
		typ, _ := cl.Type(ctx, k).Result()
		var v string
		switch typ {
		case "string":
			v, _ = cl.Get(ctx, k).Result()
		case "hash":
			v = fmt.Sprint(sortedMap(cl.HGetAll(ctx, k).Val()))
		case "zset":
			v = fmt.Sprint(cl.ZRangeWithScores(ctx, k, 0, -1).Val())
		case "set":
			m := cl.SMembers(ctx, k).Val()
			sort.Strings(m)
			v = fmt.Sprint(m)
		case "list":
			v = fmt.Sprint(cl.LRange(ctx, k, 0, -1).Val())
		}
		out[k] = typ + " " + v
	}
	return out
}

func sortedMap(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
