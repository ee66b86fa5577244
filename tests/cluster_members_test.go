package tests

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestClusterMembersThroughAFollower adds a fourth node, then removes it,
// each through a follower: the follower relays the change to the leader
// and answers with its reply, as docs/cluster.md promises of "any node".
// The leader's read lease counts the voters of each configuration: a
// majority of 2 of 3, 3 of 4 with the fourth node, 2 again without it.
func TestClusterMembersThroughAFollower(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	l := c.leader(waitTimeout)
	var f *clusterNode
	for _, n := range c.nodes {
		if n != l {
			f = n
			break
		}
	}
	waitStatus(t, l, "lease_majority", func(v int) bool { return v == 2 })
	n4 := c.addNode()
	if got := statusLine(t, f.addr(), "RAFT", "ADD", n4.id, fmt.Sprintf("127.0.0.1:%d", n4.raft)); got != "+OK" {
		t.Fatalf("RAFT ADD through follower %s: %q", f.id, got)
	}
	c.caughtUp(n4, 60*time.Second)
	if m := members(t, l); !strings.Contains(m, n4.id) {
		t.Fatalf("RAFT MEMBERS on the leader after ADD: %q", m)
	}
	waitStatus(t, l, "lease_majority", func(v int) bool { return v == 3 })
	waitStatus(t, l, "read_lease", func(v int) bool { return v == 1 })
	// A change the leader refuses comes back with the leader's words.
	if got := statusLine(t, f.addr(), "RAFT", "ADD", "", "not-an-address"); !strings.HasPrefix(got, "-") {
		t.Fatalf("a refused RAFT ADD through a follower: %q", got)
	}
	if got := statusLine(t, f.addr(), "RAFT", "REMOVE", n4.id); got != "+OK" {
		t.Fatalf("RAFT REMOVE through follower %s: %q", f.id, got)
	}
	if m := members(t, l); strings.Contains(m, n4.id) {
		t.Fatalf("RAFT MEMBERS on the leader after REMOVE: %q", m)
	}
	waitStatus(t, l, "lease_majority", func(v int) bool { return v == 2 })
	// The relayed form is refused, not relayed again, by a node that
	// does not lead.
	if got := statusLine(t, f.addr(), "RAFT", "LEADER-REMOVE", n4.id); !strings.HasPrefix(got, "-ERR this node does not lead the cluster") {
		t.Fatalf("RAFT LEADER-REMOVE on a follower: %q", got)
	}
}

// statusLine sends one command as a connection's first (so a follower
// answers itself) and returns its reply's first line; it waits as long as
// a membership change may take.
func statusLine(t *testing.T, addr string, args ...string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := c.Write([]byte(cmdline(args...))); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%v on %s: %v", args, addr, err)
	}
	return strings.TrimRight(line, "\r\n")
}

// members is RAFT MEMBERS on n, printed.
func members(t *testing.T, n *clusterNode) string {
	t.Helper()
	cl := client(n.addr())
	defer cl.Close()
	m, err := cl.Do(t.Context(), "RAFT", "MEMBERS").Result()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(m)
}
