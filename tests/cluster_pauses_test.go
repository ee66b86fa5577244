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

// TestClusterPausesKeepStoresEqual stops (SIGSTOP) and resumes leaders and
// followers at random, for random times around the heartbeat timeout,
// while producers and workers go through every node; every few pauses
// the load stops and every node's store must be the leader's, key by key.
// The nodes check their stores against the leader's every 500 ms
// meanwhile (digest.go): none may find a difference. QLESSD_CLUSTER_SEED
// replays a run.
func TestClusterPausesKeepStoresEqual(t *testing.T) {
	t.Setenv("QLESSD_TEST_DIGEST_EVERY_MS", "500")
	c := startCluster(t, 3, "--appendfsync", "always")
	c.leader(waitTimeout)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("QLESSD_CLUSTER_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("QLESSD_CLUSTER_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	pauses := clusterPauses()
	var put, completed []string
	round := 0
	for done := 0; done < pauses; round++ {
		w := newClusterLoad(c, round)
		w.until(100)
		for i := 0; i < 5 && done < pauses; i, done = i+1, done+1 {
			n := c.nodes[rng.IntN(len(c.nodes))]
			if rng.IntN(2) == 0 {
				n = c.leader(waitTimeout)
			}
			d := time.Duration(50+rng.IntN(2500)) * time.Millisecond
			n.proc.cmd.Process.Signal(syscall.SIGSTOP)
			time.Sleep(d) // the fault itself: how long the node is frozen
			n.proc.cmd.Process.Signal(syscall.SIGCONT)
			w.until(w.acked.Load() + 50)
		}
		p, d := w.stop()
		put, completed = append(put, p...), append(completed, d...)
		c.sameStoresKeyByKey()
		t.Logf("after %d pauses: %d puts and %d completions acknowledged", done, len(put), len(completed))
	}
	cl := client(c.leader(waitTimeout).addr())
	defer cl.Close()
	checkJobs(t, cl, round, put, completed)
	checkDoneOnce(t, cl, completed)
	checked := 0
	for _, n := range c.nodes {
		st := status(n)
		if st["digest_mismatches"] != "0" {
			t.Errorf("%s found its store differing from the leader's: %v\n%s", n.id, st, n.proc.Output())
		}
		m, _ := strconv.Atoi(st["digest_matches"])
		checked += m
	}
	t.Logf("%d digests of the leader's store matched by followers, none differed", checked)
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
