package cluster

import (
	"strconv"
	"time"

	"github.com/qlessd/qlessd/metrics"
)

// Stats is the node's state for /metrics.
func (n *Node) Stats() metrics.ClusterStats {
	term, _ := strconv.ParseUint(n.raft.Stats()["term"], 10, 64)
	st := metrics.ClusterStats{Leader: n.ready.Load(), Term: term, Applied: n.raft.AppliedIndex(), Commit: n.raft.CommitIndex(),
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
