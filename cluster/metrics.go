package cluster

import (
	"strconv"
	"time"

	"github.com/qlessd/qlessd/metrics"
)

// Stats is the node's state for /metrics.
func (n *Node) Stats() metrics.ClusterStats {
	term, _ := strconv.ParseUint(n.raft.Stats()["term"], 10, 64)
	st := metrics.ClusterStats{Leader: n.ready.Load(), Term: term, Applied: n.raft.AppliedIndex(), Commit: n.raft.CommitIndex()}
	if f := n.raft.GetConfiguration(); f.Error() == nil {
		st.Members = len(f.Configuration().Servers)
	}
	if st.Leader {
		if f := n.raft.GetConfiguration(); f.Error() == nil {
			n.mu.Lock()
			for _, s := range f.Configuration().Servers {
				if string(s.ID) != n.opts.NodeID && n.onlineLocked(string(s.ID)) {
					st.FollowersOnline++
				}
			}
			n.mu.Unlock()
		}
		return st
	}
	if last := n.raft.LastContact(); last.IsZero() {
		st.LastContact = -1
	} else {
		st.LastContact = time.Since(last).Seconds()
	}
	return st
}
