package cluster

import (
	"errors"
	"time"

	"github.com/hashicorp/raft"
)

// A raft future's Error does not always return once raft shuts down (a
// barrier queued as the leader loop ends stays unanswered), and a node
// waiting on one could not stop: SIGTERM hung. Every wait on a future goes
// through await, which gives up when the node stops or after a bound.

var (
	errStopping = errors.New("the cluster node is stopping")
	errTimedOut = errors.New("the cluster did not answer in time")
)

// await waits for f until it ends, the node stops, or timeout passes (0:
// no bound but the node's stop).
func (n *Node) await(f raft.Future, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case err := <-done:
		return err
	case <-n.done:
		return errStopping
	case <-expire:
		return errTimedOut
	}
}

// stopping reports whether Close has begun.
func (n *Node) stopping() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// electionBound is how long a round trip to a majority may take before
// this node counts it lost: a few heartbeat timeouts.
func (n *Node) electionBound() time.Duration { return 3 * n.heartbeat() }

// awaitShutdown stops raft, giving up after a bound: the process ends
// anyway, and the log store is closed after it.
func (n *Node) awaitShutdown() error {
	done := make(chan error, 1)
	go func() { done <- n.raft.Shutdown().Error() }()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		n.log.Warn("raft did not shut down in 5 s; stopping anyway")
		return errTimedOut
	}
}
