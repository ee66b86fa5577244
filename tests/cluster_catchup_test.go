package tests

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestClusterFollowerCatchesUp stops a follower's process (SIGSTOP) while
// the others take writes, resumes it, and checks it catches up: with
// follower reads on, it answers from its own store, which must hold what
// the leader holds.
func TestClusterFollowerCatchesUp(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, "--cluster-follower-reads", "yes")
	l := c.leader(waitTimeout)
	var f *clusterNode
	for _, n := range c.nodes {
		if n != l {
			f = n
			break
		}
	}
	ctx := context.Background()
	lc := client(l.addr())
	defer lc.Close()
	f.proc.cmd.Process.Signal(syscall.SIGSTOP)
	for i := range 2000 {
		jid := fmt.Sprintf("j%d", i)
		if err := lc.Do(ctx, "QLESS", "put", "now", "", "q", jid, "K", `{"n":`+strconv.Itoa(i)+`}`, "0").Err(); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := lc.Do(ctx, "QLESS", "pop", "now", "q", "w", "1").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := lc.Set(ctx, "plain", "value", 0).Err(); err != nil {
		t.Fatal(err)
	}
	f.proc.cmd.Process.Signal(syscall.SIGCONT)
	c.caughtUp(f, waitTimeout)
	fc := client(f.addr())
	defer fc.Close()
	for _, args := range [][]any{{"DBSIZE"}, {"GET", "plain"}, {"QLESS", "queues", "now"}, {"QLESS", "get", "now", "j1999"}, {"ZRANGE", "ql:q:q-locks", "0", "-1", "WITHSCORES"}} {
		want, err := lc.Do(ctx, args...).Result()
		if err != nil {
			t.Fatal(err)
		}
		got, err := fc.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v on the follower: %v", args, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v: follower %v, leader %v", args, got, want)
		}
	}
	c.sameStores()
	if st := status(f); st["relayed_clients"] != "0" {
		t.Fatalf("a follower serving reads relays no client: %v", st)
	}
	if err := fc.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != "READONLY You can't write against a read only replica." {
		t.Fatalf("a write on a follower serving reads: %v", err)
	}
}

// TestClusterJoinInstallsSnapshot adds a fourth node to a cluster whose
// log was compacted past 100,000 jobs: it installs the leader's snapshot
// and then follows the log.
func TestClusterJoinInstallsSnapshot(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, "--cluster-follower-reads", "yes", "--cluster-trailing-logs", "64", "--cluster-snapshot-threshold", "1000000")
	l := c.leader(waitTimeout)
	ctx := context.Background()
	lc := client(l.addr())
	defer lc.Close()
	const jobs, batch = 100000, 1000
	for i := 0; i < jobs; i += batch {
		p := lc.Pipeline()
		for j := i; j < i+batch; j++ {
			p.Do(ctx, "QLESS", "put", "now", "", "big", fmt.Sprintf("job-%d", j), "K", "{}", "0")
		}
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A few hundred entries after the snapshot, beyond the 64 kept.
	for i := range 300 {
		if err := lc.Set(ctx, fmt.Sprintf("after-%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := rawCommand(l.addr(), "RAFT", "SNAPSHOT"); err != nil || s != "OK" {
		t.Fatalf("RAFT SNAPSHOT: %q %v", s, err)
	}
	for i := range 100 {
		if err := lc.Set(ctx, fmt.Sprintf("later-%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	n4 := c.addNode("--cluster-follower-reads", "yes")
	if err := lc.Do(ctx, "RAFT", "ADD", n4.id, fmt.Sprintf("127.0.0.1:%d", n4.raft)).Err(); err != nil {
		t.Fatal(err)
	}
	c.caughtUp(n4, 60*time.Second)
	if st := status(n4); st["snapshots_installed"] != "1" {
		t.Fatalf("the new node did not install a snapshot: %v", st)
	}
	fc := client(n4.addr())
	defer fc.Close()
	for _, args := range [][]any{{"DBSIZE"}, {"ZCARD", "ql:q:big-work"}, {"GET", "later-99"}, {"QLESS", "queues", "now"}} {
		want, _ := lc.Do(ctx, args...).Result()
		got, err := fc.Do(ctx, args...).Result()
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v: new node %v (%v), leader %v", args, got, err, want)
		}
	}
	if n, _ := fc.ZCard(ctx, "ql:q:big-work").Result(); n != jobs {
		t.Fatalf("the new node holds %d waiting jobs, want %d", n, jobs)
	}
	c.sameStores()
	members, err := lc.Do(ctx, "RAFT", "MEMBERS").Slice()
	if err != nil || len(members) != 4 {
		t.Fatalf("RAFT MEMBERS: %v %v", members, err)
	}
}
