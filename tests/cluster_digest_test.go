package tests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClusterNodesCheckTheirStores has the leader put its store's digest in
// the log every 300 ms (a test hook; a minute by default): followers whose
// stores match count it, and once the followers change their stores alone
// (a test hook, at log index 200) each logs the difference and counts it in
// RAFT STATUS, INFO replication and /metrics, then re-installs the
// leader's snapshot.
func TestClusterNodesCheckTheirStores(t *testing.T) {
	t.Parallel()
	c := startClusterEnv(t, []string{"QLESSD_TEST_DIGEST_EVERY_MS=300", "QLESSD_TEST_DIVERGE_AT=200"}, 3)
	l := c.leader(waitTimeout)
	var followers []*clusterNode
	for _, n := range c.nodes {
		if n != l {
			followers = append(followers, n)
		}
	}
	cl := client(l.addr())
	defer cl.Close()
	ctx := context.Background()
	for i := range 50 {
		if err := cl.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range followers {
		waitStatus(t, f, "digest_matches", func(v int) bool { return v >= 1 })
		if st := status(f); st["digest_mismatches"] != "0" {
			t.Fatalf("%s differs from the leader with no fault: %v", f.id, st)
		}
	}
	for i := 50; i < 400; i++ {
		if err := cl.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range followers {
		waitStatus(t, f, "digest_mismatches", func(v int) bool { return v >= 1 })
		info, err := rawCommand(f.addr(), "INFO", "replication")
		if err != nil || !strings.Contains(info, "cluster_digest_mismatches:") || strings.Contains(info, "cluster_digest_mismatches:0\r\n") {
			t.Errorf("INFO replication on %s: %q %v", f.id, info, err)
		}
		resp, err := http.Get("http://" + f.http + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "qlessd_cluster_digest_mismatches_total ") || strings.Contains(string(body), "qlessd_cluster_digest_mismatches_total 0\n") {
			t.Errorf("/metrics on %s has no mismatch counted", f.id)
		}
		if out := f.proc.Output(); !strings.Contains(out, "differs from the leader's at the same log index") {
			t.Errorf("%s did not log the difference:\n%s", f.id, out)
		}
	}
	if st := status(l); st["digest_mismatches"] != "0" {
		t.Errorf("the leader counts a mismatch with itself: %v", st)
	}
	// Both re-install the leader's snapshot (the leader commits only once
	// one of them has) and hold the leader's store again.
	for _, f := range followers {
		waitStatus(t, f, "store_reinstalls", func(v int) bool { return v >= 1 })
	}
	if err := cl.Set(ctx, "after", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	c.sameStoresKeyByKey()
}

// waitStatus waits until RAFT STATUS field on n satisfies ok.
func waitStatus(t *testing.T, n *clusterNode, field string, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var st map[string]string
	for time.Now().Before(deadline) {
		if st = status(n); st != nil {
			if v, err := strconv.Atoi(st[field]); err == nil && ok(v) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %s never as wanted: %v", n.id, field, st)
}
