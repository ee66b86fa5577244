package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/qlessd/qlessd/commands"
)

// RAFT ADD and REMOVE work through any node: a follower relays the change
// to the leader (as RAFT LEADER-ADD / LEADER-REMOVE, which a node that
// does not lead refuses rather than relays again, so two nodes that each
// take the other for the leader cannot pass it back and forth) and
// answers with the leader's reply.

// membersTimeout bounds a relayed change: the leader's wait for the commit
// (10 s) and the way there and back.
const membersTimeout = 15 * time.Second

// changeMembers runs RAFT ADD/REMOVE (sub "add", "remove") or their
// relayed forms ("leader-add", "leader-remove").
func (n *Node) changeMembers(c *commands.Ctx, sub string, args [][]byte) {
	change, relayed := strings.CutPrefix(sub, "leader-")
	if n.raft.State() != raft.Leader {
		if relayed {
			c.W.WriteError("ERR " + n.leading().Error())
			return
		}
		n.relayMembers(c, change, args)
		return
	}
	var f raft.Future
	if change == "add" {
		f = n.raft.AddVoter(raft.ServerID(args[2]), raft.ServerAddress(args[3]), 0, 10*time.Second)
	} else {
		f = n.raft.RemoveServer(raft.ServerID(args[2]), 0, 10*time.Second)
	}
	if err := n.await(f, membersTimeout); err != nil {
		c.W.WriteError("ERR " + err.Error())
		return
	}
	c.W.WriteStatus("OK")
}

// relayMembers asks the leader to make a change and answers with its
// reply.
func (n *Node) relayMembers(c *commands.Ctx, change string, args [][]byte) {
	id, addr := n.leader(5 * time.Second)
	if id == "" || addr == "" || id == n.opts.NodeID {
		c.W.WriteError("ERR " + n.leading().Error())
		return
	}
	fwd := []string{"RAFT", "LEADER-" + strings.ToUpper(change)}
	for _, a := range args[2:] {
		fwd = append(fwd, string(a))
	}
	line, err := n.askLeader(addr, membersTimeout+5*time.Second, fwd...)
	switch {
	case err != nil:
		c.W.WriteError(fmt.Sprintf("ERR relaying to the leader %s at %s failed: %v", id, addr, err))
	case strings.HasPrefix(line, "-"):
		c.W.WriteError(line[1:])
	default:
		c.W.WriteStatus(strings.TrimPrefix(line, "+"))
	}
}
