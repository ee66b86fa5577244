package tests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClusterFollowerReinstallsAfterDigestDiffers changes one follower's
// store behind raft's back (a test command, QLESSD_TEST_DIVERGE_COMMAND)
// with the leader checking digests every 300 ms (a test hook): the
// follower finds its digest differs, counts it, refuses its follower
// reads with -LOADING while it waits for the leader's snapshot (held back
// by a test hook until the test lets it go), re-installs it by itself
// while writes go on, and ends with the leader's store key by key,
// answering its reads from it again; the other follower is left alone.
func TestClusterFollowerReinstallsAfterDigestDiffers(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "send-the-snapshot")
	c := startClusterEnv(t, []string{"QLESSD_TEST_DIGEST_EVERY_MS=300", "QLESSD_TEST_DIVERGE_COMMAND=1",
		"QLESSD_TEST_RESEND_GATE=" + gate}, 3, "--cluster-follower-reads", "yes")
	l := c.leader(waitTimeout)
	var f, other *clusterNode
	for _, n := range c.nodes {
		switch {
		case n == l:
		case f == nil:
			f = n
		default:
			other = n
		}
	}
	cl := client(l.addr())
	defer cl.Close()
	ctx := context.Background()
	for i := range 300 {
		if err := cl.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.caughtUp(f, waitTimeout)
	waitStatus(t, f, "digest_matches", func(v int) bool { return v >= 1 })
	if out, err := rawCommand(f.addr(), "RAFT", "TEST-DIVERGE", "k7", "changed behind raft's back"); err != nil || out != "OK" {
		t.Fatalf("RAFT TEST-DIVERGE on %s: %q %v", f.id, out, err)
	}
	// Writes go on: the leader checks only when entries were applied.
	stop := make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		for i := 300; ; i++ {
			select {
			case <-stop:
				wrote <- nil
				return
			default:
			}
			if err := cl.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
				wrote <- err
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	waitStatus(t, f, "digest_mismatches", func(v int) bool { return v >= 1 })
	fc := client(f.addr())
	defer fc.Close()
	if st := status(f); st["reinstalling"] != "1" || st["store_reinstalls"] != "0" {
		t.Errorf("%s while the leader holds the snapshot back: %v", f.id, st)
	}
	if err := fc.Get(ctx, "k7").Err(); err == nil || !strings.HasPrefix(err.Error(), "LOADING this node's store differed from the leader's") {
		t.Errorf("a follower read while %s re-installs: %v", f.id, err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, f, "store_reinstalls", func(v int) bool { return v >= 1 })
	close(stop)
	if err := <-wrote; err != nil {
		t.Fatalf("a write while %s re-installed: %v", f.id, err)
	}
	c.sameStoresKeyByKey()
	if got, _ := cl.Get(ctx, "k7").Result(); got != "7" {
		t.Fatalf("k7 on the leader is %q", got)
	}
	if got, err := fc.Get(ctx, "k7").Result(); got != "7" {
		t.Errorf("k7 read on %s after it re-installed: %q %v", f.id, got, err)
	}
	if st := status(other); st["digest_mismatches"] != "0" || st["store_reinstalls"] != "0" {
		t.Errorf("%s, left alone, counts a difference or an install: %v", other.id, st)
	}
	if st := status(f); st["reinstalling"] != "0" {
		t.Errorf("%s still re-installing: %v", f.id, st)
	}
	if info, err := rawCommand(f.addr(), "INFO", "replication"); err != nil || !strings.Contains(info, "cluster_store_reinstalls:1\r\n") {
		t.Errorf("INFO replication on %s: %q %v", f.id, info, err)
	}
	resp, err := http.Get("http://" + f.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "qlessd_cluster_store_reinstalls_total 1\n") {
		t.Errorf("/metrics on %s counts no re-install", f.id)
	}
	out := f.proc.Output()
	for _, want := range []string{"differs from the leader's at the same log index", "re-installed the leader's snapshot"} {
		if !strings.Contains(out, want) {
			t.Errorf("%s did not log %q:\n%s", f.id, want, out)
		}
	}
	// Its digests match the leader's again.
	n, _ := strconv.Atoi(status(f)["digest_matches"])
	for i := range 20 {
		if err := cl.Set(ctx, fmt.Sprintf("after%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	waitStatus(t, f, "digest_matches", func(v int) bool { return v > n })
	if st := status(f); st["digest_mismatches"] != "1" {
		t.Errorf("%s counts more than the one difference: %v", f.id, st)
	}
}
