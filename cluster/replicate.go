package cluster

import (
	"errors"
	"time"

	"github.com/qlessd/qlessd/store"
)

// A proposal is the frame this node is replicating. The store's journal
// sends one frame at a time (holding its writer lock), so one is enough.
// The log may apply it here (committed) before or after Raft tells the
// proposer how it went: when Raft reports it lost but the log then applies
// it, it was first taken back (undone) and is applied as anyone's entry.
type proposal struct {
	nonce     uint64
	committed bool
	undone    bool
}

var errNotLeader = errors.New("this node does not lead the cluster")

// Replicate is the store's Replicator: it returns once the cluster has
// committed frame and this node applied it.
func (n *Node) Replicate(frame []byte) error {
	if !n.serving() {
		return &store.ReplicationError{Err: errNotLeader}
	}
	p := &proposal{nonce: n.nonce.Add(1)}
	n.mu.Lock()
	n.inflight = p
	n.mu.Unlock()
	err := n.await(n.raft.Apply(encodeFrame(p.nonce, n.now(), frame), 0), 0)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.inflight = nil
	if p.committed {
		return nil
	}
	if err == nil {
		err = errors.New("the cluster's log did not apply the frame it committed")
	}
	p.undone = true
	return &store.ReplicationError{Err: err}
}

// now is the clock an entry carries: the leader's, never behind the last
// one applied.
func (n *Node) now() int64 {
	return max(time.Now().UnixMilli(), n.clock.Load())
}

func (n *Node) noteClock(ms int64) {
	for {
		c := n.clock.Load()
		if ms <= c || n.clock.CompareAndSwap(c, ms) {
			return
		}
	}
}
