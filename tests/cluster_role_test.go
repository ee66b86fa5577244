package tests

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClusterRoleAndNodeCommands checks that ROLE and INFO replication
// show the topology as a Redis master and replicas do, each node answering
// for itself, and that SHUTDOWN sent to a follower stops that follower.
func TestClusterRoleAndNodeCommands(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	l := c.leader(waitTimeout)
	// Followers tell the leader their client address once they know it.
	deadline := time.Now().Add(waitTimeout)
	var role []any
	for time.Now().Before(deadline) {
		role = respCommand(t, l.addr(), "ROLE").([]any)
		if announced(role) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if role[0] != "master" || len(role[2].([]any)) != 2 {
		t.Fatalf("ROLE on the leader: %v", role)
	}
	ports := map[string]bool{}
	for _, r := range role[2].([]any) {
		ports[r.([]any)[1].(string)] = true
	}
	for _, n := range c.nodes {
		if n == l {
			continue
		}
		if !ports[strconv.Itoa(n.port)] {
			t.Fatalf("ROLE on the leader does not list follower %s (port %d): %v", n.id, n.port, role)
		}
		fr := respCommand(t, n.addr(), "ROLE").([]any)
		if fr[0] != "slave" || fr[1] != "127.0.0.1" || fr[2] != int64(l.port) || fr[3] != "connected" {
			t.Fatalf("ROLE on follower %s: %v", n.id, fr)
		}
		info := respCommand(t, n.addr(), "INFO", "replication").(string)
		for _, want := range []string{"role:slave", fmt.Sprintf("master_port:%d", l.port), "master_link_status:up", "slave_read_only:1"} {
			if !strings.Contains(info, want+"\r\n") {
				t.Fatalf("INFO replication on follower %s lacks %q:\n%s", n.id, want, info)
			}
		}
	}
	info := respCommand(t, l.addr(), "INFO", "replication").(string)
	if !strings.Contains(info, "role:master\r\n") || !strings.Contains(info, "connected_slaves:2\r\n") {
		t.Fatalf("INFO replication on the leader:\n%s", info)
	}
	// A write is acknowledged once a majority holds it: WAIT counts the
	// one follower of three that guarantees.
	if got := respCommand(t, l.addr(), "WAIT", "1", "0"); got != int64(1) {
		t.Fatalf("WAIT 1 0 on the leader: %v", got)
	}
	if got := respCommand(t, l.addr(), "WAIT", "2", "50"); got != int64(1) {
		t.Fatalf("WAIT 2 50 on the leader: %v", got)
	}
	checkClusterMetrics(t, c, l)
	var f *clusterNode
	for _, n := range c.nodes {
		if n != l {
			f = n
			break
		}
	}
	respCommand(t, f.addr(), "SHUTDOWN")
	select {
	case <-f.proc.done:
	case <-time.After(waitTimeout):
		t.Fatal("SHUTDOWN sent to a follower did not stop it")
	}
	if l.proc.Exited() {
		t.Fatal("SHUTDOWN sent to a follower stopped the leader")
	}
}

// announced reports whether a master's ROLE lists two replicas with
// their addresses.
func announced(role []any) bool {
	if len(role) != 3 {
		return false
	}
	replicas, _ := role[2].([]any)
	for _, r := range replicas {
		if r.([]any)[0] == "" {
			return false
		}
	}
	return len(replicas) == 2
}

// respCommand sends one command as a connection's first and reads its
// reply: a string, an integer, an array or an error (as a Go error value).
func respCommand(t *testing.T, addr string, args ...string) any {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.Write([]byte(b.String()))
	v, err := readResp(bufio.NewReader(c))
	if err != nil && args[0] != "SHUTDOWN" {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

func readResp(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, fmt.Errorf("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return fmt.Errorf("%s", line[1:]), nil
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, max(n, 0))
		for range n {
			v, err := readResp(r)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("reply %q", line)
}

// checkClusterMetrics reads /metrics on every node: the leader leads, with
// two followers online; each follower does not, and has heard from it.
func checkClusterMetrics(t *testing.T, c *testCluster, l *clusterNode) {
	t.Helper()
	for _, n := range c.nodes {
		resp, err := http.Get("http://" + n.http + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := []string{"qlessd_cluster_leader 0", "qlessd_cluster_members 3", "qlessd_cluster_followers_online 0"}
		if n == l {
			want = []string{"qlessd_cluster_leader 1", "qlessd_cluster_members 3", "qlessd_cluster_followers_online 2", "qlessd_cluster_last_contact_seconds 0"}
		}
		for _, w := range want {
			if !strings.Contains(string(body), "\n"+w+"\n") {
				t.Fatalf("/metrics of %s lacks %q:\n%s", n.id, w, grepLines(string(body), "qlessd_cluster_"))
			}
		}
		if !strings.Contains(string(body), "qlessd_cluster_applied_index ") || !strings.Contains(string(body), "qlessd_cluster_term ") {
			t.Fatalf("/metrics of %s lacks the indexes:\n%s", n.id, grepLines(string(body), "qlessd_cluster_"))
		}
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
