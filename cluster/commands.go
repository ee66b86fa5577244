package cluster

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// RAFT is the cluster's admin command (Redis's CLUSTER means sharding to
// its clients, so it is not reused):
//
//	RAFT STATUS                   this node's view, as INFO-style lines
//	RAFT MEMBERS                  [id, raft address, client address, voter|nonvoter] per member
//	RAFT ADD <id> <host:port>     add a node (its Raft address) as a voter (through any node)
//	RAFT REMOVE <id>              remove a node (through any node)
//	RAFT SNAPSHOT                 take a snapshot now
//	RAFT DIGEST                   a hash of this node's store, equal on nodes that applied the same entries
//	RAFT ANNOUNCE <id> <host:port>  a follower's client address (sent by the nodes themselves)
//	RAFT LEADER-ADD, LEADER-REMOVE  ADD and REMOVE relayed by a follower (members.go)
//	RAFT LEADER-RESEND <id>       a snapshot for follower id to re-install (heal.go)
//	RAFT TEST-DIVERGE <key> <value>  set a string key in this node's store alone (QLESSD_TEST_DIVERGE_COMMAND=1 only)
func raftCommand(n *Node) *commands.Cmd {
	return &commands.Cmd{Name: "raft", Arity: -2, Flags: commands.NoTx | commands.NoScript | commands.Loading | commands.Stale,
		Run: func(c *commands.Ctx, args [][]byte) { n.runRaft(c, args) }}
}

func (n *Node) runRaft(c *commands.Ctx, args [][]byte) {
	sub := strings.ToLower(string(args[1]))
	want := map[string]int{"digest": 2, "status": 2, "members": 2, "add": 4, "remove": 3, "snapshot": 2, "announce": 4, "help": 2,
		"leader-add": 4, "leader-remove": 3, "leader-resend": 3}
	if n.hooks.divergeCommand {
		want["test-diverge"] = 4
	}
	if w, ok := want[sub]; !ok || w != len(args) {
		c.W.WriteError(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try RAFT HELP.", args[1]))
		return
	}
	var err error
	switch sub {
	case "help":
		c.W.WriteArray(len(raftHelp))
		for _, l := range raftHelp {
			c.W.WriteStatus(l)
		}
		return
	case "status":
		c.W.WriteBulkString(n.status())
		return
	case "digest":
		c.W.WriteBulkString(n.db.Digest())
		return
	case "members":
		n.writeMembers(c.W)
		return
	case "add", "remove", "leader-add", "leader-remove":
		n.changeMembers(c, sub, args)
		return
	case "leader-resend":
		var upto uint64
		if upto, err = n.snapshotToResend(string(args[2])); err == nil {
			c.W.WriteStatus(fmt.Sprintf("OK %d", upto))
			return
		}
	case "test-diverge":
		n.db.DivergeKeyForTest(string(args[2]), string(args[3]))
	case "snapshot":
		err = n.await(n.raft.Snapshot(), 0)
	case "announce":
		if _, _, serr := net.SplitHostPort(string(args[3])); serr != nil {
			err = serr
		} else if err = n.leading(); err == nil {
			err = n.proposeAddr(string(args[2]), string(args[3]))
		}
	}
	if err != nil {
		c.W.WriteError("ERR " + err.Error())
		return
	}
	c.W.WriteStatus("OK")
}

var raftHelp = []string{
	"RAFT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"STATUS",
	"    This node's view of the cluster, as lines of field:value.",
	"MEMBERS",
	"    Each member: id, Raft address, client address, voter or nonvoter.",
	"ADD <id> <host:port>",
	"    Add a node, by its Raft address, as a voter (through any node: a follower relays it to the leader).",
	"REMOVE <id>",
	"    Remove a node from the cluster (through any node).",
	"SNAPSHOT",
	"    Take a snapshot of this node's store now.",
	"DIGEST",
	"    A hash of this node's store: equal on nodes that applied the same entries.",
	"HELP",
	"    Print this help.",
}

func (n *Node) leading() error {
	if n.raft.State() == raft.Leader {
		return nil
	}
	id, addr := n.leader(0)
	return fmt.Errorf("this node does not lead the cluster; the leader is %q at %q", id, addr)
}

func (n *Node) status() string {
	var b strings.Builder
	field := func(k string, v any) { fmt.Fprintf(&b, "%s:%v\r\n", k, v) }
	_, lid := n.raft.LeaderWithID()
	st := n.raft.Stats()
	field("node_id", n.opts.NodeID)
	field("state", strings.ToLower(n.raft.State().String()))
	field("serving_writes", boolInt(n.ready.Load()))
	field("read_lease", boolInt(n.ready.Load() && n.lease.current()))
	field("lease_majority", n.lease.majority())
	field("reads_confirmed", n.leaseWaits.Load())
	field("reads_refused", n.leaseRefusals.Load())
	field("leader_id", lid)
	field("leader_client_addr", n.addrOf(string(lid)))
	field("term", st["term"])
	field("applied_index", n.raft.AppliedIndex())
	field("store_index", n.storeIndex.Load())
	field("commit_index", n.raft.CommitIndex())
	field("last_index", n.raft.LastIndex())
	field("last_snapshot_index", st["last_snapshot_index"])
	field("num_peers", st["num_peers"])
	field("snapshots_installed", n.installs.Load())
	field("digest_matches", n.digestMatches.Load())
	field("digest_mismatches", n.digestMismatches.Load())
	field("store_reinstalls", n.reinstalls.Load())
	field("reinstalling", boolInt(n.healing.Load()))
	n.mu.Lock()
	relayed := len(n.relays)
	n.mu.Unlock()
	field("relayed_clients", relayed)
	field("last_contact", st["last_contact"])
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (n *Node) writeMembers(w resp.Writer) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		w.WriteError("ERR " + err.Error())
		return
	}
	servers := f.Configuration().Servers
	w.WriteArray(len(servers))
	for _, s := range servers {
		w.WriteArray(4)
		w.WriteBulkString(string(s.ID))
		w.WriteBulkString(string(s.Address))
		w.WriteBulkString(n.addrOf(string(s.ID)))
		w.WriteBulkString(strings.ToLower(s.Suffrage.String()))
	}
}

// replicationState answers ROLE and INFO replication.
func (n *Node) replicationState() commands.ReplicationState {
	servers := n.members()
	st := commands.ReplicationState{ReplID: replID(servers), Offset: int64(n.raft.AppliedIndex()), Cluster: true,
		DigestMismatches: n.digestMismatches.Load(), Reinstalls: n.reinstalls.Load()}
	if n.ready.Load() {
		st.Master = true
		voters := 0
		n.mu.Lock()
		defer n.mu.Unlock()
		for _, s := range servers {
			if s.Suffrage == raft.Voter {
				voters++
			}
			id := string(s.ID)
			if id == n.opts.NodeID {
				continue
			}
			host, port := splitAddr(n.addrs[id])
			st.Replicas = append(st.Replicas, commands.Replica{Host: host, Port: port, Online: n.onlineLocked(id), Offset: int64(n.raft.CommitIndex())})
		}
		st.Acked = int64(voters / 2) // a majority, this node aside
		return st
	}
	id, addr := n.leader(0)
	st.MasterHost, st.MasterPort = splitAddr(addr)
	last := n.raft.LastContact()
	st.LinkUp = id != "" && !last.IsZero() && time.Since(last) < 5*time.Second
	if !last.IsZero() {
		st.LastIO = int64(time.Since(last).Seconds())
	} else {
		st.LastIO = -1
	}
	return st
}

// onlineLocked reports whether follower id answers the leader's
// heartbeats: one never reported failing counts as online. mu held.
func (n *Node) onlineLocked(id string) bool {
	on, seen := n.online[id]
	return on || !seen
}

func splitAddr(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}
