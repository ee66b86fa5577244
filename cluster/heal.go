package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// A follower whose store differs from the leader's at the same log index
// (digest.go) comes back to the leader's store by itself: it re-installs
// the leader's snapshot through raft's own InstallSnapshot, and raft then
// applies the entries after the snapshot again (records set or delete
// whole items, so an entry the snapshot already holds changes nothing).
//
// Nothing of this node's is ever the source: its log is the cluster's
// (the log is not what differs, and it is neither cut nor rewritten
// here), only its store is replaced, by the leader's. So:
//
//  1. It stops answering its own reads (--cluster-follower-reads gets
//     -LOADING) and does not serve as leader if elected: it hands the
//     leadership over.
//  2. It asks the leader (RAFT LEADER-RESEND over the client port, as a
//     relayed RAFT ADD) for a snapshot raft can send: the leader takes a
//     fresh one and makes sure its log no longer starts at the first
//     entry (raft sends a snapshot only to a follower that needs an entry
//     the log has dropped), and answers with its last index.
//  3. It then refuses the leader's AppendEntries with "I hold nothing"
//     (Success false, LastLog 0): raft's leader steps its next index
//     for this follower back to 1, finds that entry compacted and sends
//     its latest snapshot. A refused append is not acknowledged, so it
//     never counts towards a commit: the cluster commits with the other
//     nodes meanwhile (with all but the leader re-installing at once,
//     writes wait for the first install). Heartbeats are answered as
//     ever, so no election starts.
//  4. Raft installs the snapshot (fsm.Restore replaces the store and the
//     data file), sets its applied index to the snapshot's and applies
//     the entries after it from the log. The node serves again; digests
//     are compared again past the leader's last index of step 2, before
//     which a snapshot copied while writes went on may hold later ones.
//
// An attempt that fails (the leader changed, no snapshot came within
// healWait) is tried again, with a growing pause, until it succeeds.

const healWait = time.Minute

var errHealing = errors.New("this node's store differs from the leader's")

// HealingError refuses a read on a follower re-installing the leader's
// snapshot.
type HealingError struct{}

func (HealingError) Error() string { return errHealing.Error() }

// RedisReply is the refused read's reply.
func (HealingError) RedisReply() string {
	return "LOADING this node's store differed from the leader's and is being replaced by the leader's snapshot; retry in a moment, or read through the leader"
}

// startHeal begins re-installing the leader's snapshot, once.
func (n *Node) startHeal() {
	if n.stopping() || !n.healing.CompareAndSwap(false, true) {
		return
	}
	n.log.Warn("re-installing the leader's snapshot: this node's store differs from the leader's")
	n.wg.Add(1)
	go n.heal()
}

func (n *Node) heal() {
	defer n.wg.Done()
	pause := time.Second
	for n.healing.Load() {
		if n.healOnce() {
			return
		}
		select {
		case <-n.done:
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 30*time.Second)
	}
}

// healOnce makes one attempt; true once the snapshot is installed.
func (n *Node) healOnce() bool {
	if n.raft.State() == raft.Leader {
		n.handOver()
		return false
	}
	id, addr := n.leader(5 * time.Second)
	if id == "" || addr == "" || id == n.opts.NodeID {
		return false
	}
	before := n.installs.Load()
	line, err := n.askLeader(addr, 2*time.Minute, "RAFT", "LEADER-RESEND", n.opts.NodeID)
	if err == nil && !strings.HasPrefix(line, "+OK ") {
		err = fmt.Errorf("%s", strings.TrimPrefix(line, "-"))
	}
	if err != nil {
		n.log.Warn("asking the leader for a snapshot to re-install failed; trying again", "leader", id, "err", err)
		return false
	}
	upto, _ := strconv.ParseUint(strings.TrimPrefix(line, "+OK "), 10, 64)
	n.quietUntil.Store(upto)
	n.refusing.Store(true)
	defer n.refusing.Store(false)
	deadline := time.After(healWait)
	for n.installs.Load() == before {
		select {
		case <-n.done:
			return true
		case <-deadline:
			n.log.Warn("the leader sent no snapshot to re-install; asking again", "leader", id)
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// healed is called once a snapshot from the leader is installed.
func (n *Node) healed() {
	if n.healing.Swap(false) {
		n.refusing.Store(false)
		n.reinstalls.Add(1)
		n.log.Warn("re-installed the leader's snapshot; this node's store is the leader's again")
	}
}

// handOver gives the leadership away: this node's store is not the
// cluster's.
func (n *Node) handOver() {
	n.log.Warn("elected while this node's store differs from the leader's; handing the leadership over")
	if err := n.await(n.raft.LeadershipTransfer(), n.electionBound()); err != nil {
		n.log.Warn("handing the leadership over failed", "err", err)
	}
}

// snapshotToResend serves RAFT LEADER-RESEND: it takes a snapshot that
// raft can send to follower id, one whose log no longer holds the first
// entry, and returns the last index then.
func (n *Node) snapshotToResend(id string) (uint64, error) {
	if err := n.leading(); err != nil {
		return 0, err
	}
	if !n.isMember(id) || id == n.opts.NodeID {
		return 0, fmt.Errorf("%q is not a follower in this cluster", id)
	}
	n.resendMu.Lock()
	defer n.resendMu.Unlock()
	if err := n.holdResend(); err != nil {
		return 0, err
	}
	// A new entry, so that the snapshot is taken even when one was just
	// taken.
	if err := n.await(n.raft.Barrier(5*time.Second), 5*time.Second+n.electionBound()); err != nil {
		return 0, err
	}
	saved := n.raft.ReloadableConfig()
	if first, err := n.entries.FirstIndex(); err == nil && first <= 1 {
		// Keep all but the first entry: the follower is sent back there.
		cut := saved
		if last := n.raft.LastIndex(); cut.TrailingLogs >= last {
			cut.TrailingLogs = last - 1
		}
		if err := n.raft.ReloadConfig(cut); err != nil {
			return 0, err
		}
		defer n.raft.ReloadConfig(saved)
	}
	if err := n.await(n.raft.Snapshot(), 0); err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	if first, err := n.entries.FirstIndex(); err != nil || first <= 1 {
		return 0, fmt.Errorf("the log still starts at its first entry (%d, %v)", first, err)
	}
	n.log.Info("took a snapshot for a follower to re-install", "follower", id)
	return n.raft.LastIndex(), nil
}

func (n *Node) isMember(id string) bool {
	for _, s := range n.members() {
		if string(s.ID) == id {
			return true
		}
	}
	return false
}

// refuseAppends answers the leader's AppendEntries with "I hold nothing"
// while this node waits for a snapshot to re-install (step 3 above); false
// when rpc goes to raft.
func (n *Node) refuseAppends(rpc raft.RPC) bool {
	if !n.refusing.Load() {
		return false
	}
	req, ok := rpc.Command.(*raft.AppendEntriesRequest)
	if !ok || req.Term != n.raft.CurrentTerm() || (len(req.Entries) == 0 && req.PrevLogEntry == 0) {
		return false
	}
	rpc.Respond(&raft.AppendEntriesResponse{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(n.opts.NodeID), Addr: []byte(n.opts.Bind)},
		Term:      req.Term,
	}, nil)
	return true
}

// filterRPCs passes the transport's requests to raft, but those
// refuseAppends answers.
func (t *leaseTransport) filterRPCs(n *Node) {
	in := t.NetworkTransport.Consumer()
	for {
		select {
		case <-n.done:
			return
		case rpc := <-in:
			if n.refuseAppends(rpc) {
				continue
			}
			select {
			case t.rpcs <- rpc:
			case <-n.done:
				return
			}
		}
	}
}

// Consumer is what raft reads requests from: the filtered ones.
func (t *leaseTransport) Consumer() <-chan raft.RPC { return t.rpcs }
