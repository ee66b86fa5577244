package cluster

import (
	"strconv"
	"time"
)

// Stats is the node's state for /metrics (package metrics reads it).
type Stats struct {
	Leader          bool // leads and serves writes
	Term            uint64
	Applied, Commit uint64 // log indexes
	Members         int
	// FollowersOnline counts followers answering the leader's heartbeats
	// (the leader only); LastContact is seconds since a follower last
	// heard from the leader (-1: never).
	FollowersOnline int
	LastContact     float64
	// DigestMismatches counts the leader's store digests this node's
	// store did not match at the same log index.
	DigestMismatches int64
	// Reinstalls counts the leader's snapshots this node re-installed
	// after its store differed.
	Reinstalls int64
}

// Stats reads the node's state for /metrics.
func (n *Node) Stats() Stats {
	term, _ := strconv.ParseUint(n.raft.Stats()["term"], 10, 64)
	st := Stats{Leader: n.ready.Load(), Term: term, Applied: n.raft.AppliedIndex(), Commit: n.raft.CommitIndex(),
		DigestMismatches: n.digestMismatches.Load(), Reinstalls: n.reinstalls.Load()}
	servers := n.members()
	st.Members = len(servers)
	if st.Leader {
		n.mu.Lock()
		st.FollowersOnline = n.followersOnlineLocked(servers)
		n.mu.Unlock()
		return st
	}
	if last := n.raft.LastContact(); last.IsZero() {
		st.LastContact = -1
	} else {
		st.LastContact = time.Since(last).Seconds()
	}
	return st
}
