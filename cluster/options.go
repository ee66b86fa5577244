// Package cluster runs qlessd nodes as one replicated store on
// hashicorp/raft: the leader's committed store transactions are the log's
// entries (store/replicate.go), followers apply them as records, and
// clients of a follower are relayed to the leader.
package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/qlessd/qlessd/store"
	"github.com/qlessd/qlessd/tlsconf"
)

// Options configures a node.
type Options struct {
	NodeID string
	// Bind is the Raft transport's address (host:port); the other nodes
	// reach this one there.
	Bind string
	// Peers bootstraps a new cluster: every member's id and Raft address,
	// this node's included. Empty: join an existing cluster when its
	// leader adds this node (RAFT ADD), or restart from the node's state.
	Peers []Peer
	// Dir is the data directory; the node keeps its Raft log and
	// snapshots in Dir/raft.
	Dir string
	// ClientAddr is where clients reach this node (host:port), told to the
	// other nodes so that they relay their clients here while it leads.
	ClientAddr string
	// Password is requirepass, which the nodes share.
	Password      string
	FollowerReads bool
	Sync          store.Sync
	// SnapshotThreshold is how many log entries since the last snapshot
	// start the next one; TrailingLogs how many stay after it.
	SnapshotThreshold uint64
	TrailingLogs      uint64
	// HeartbeatTimeout sets the failure detection: election and lease
	// timeouts follow it (see Start).
	HeartbeatTimeout time.Duration
	// TLS, with tls-replication, is the nodes' certificate and CA: they
	// talk to each other over mutual TLS (tls.go).
	TLS    *tlsconf.Holder
	Logger *slog.Logger
}

// Peer is one member of the cluster.
type Peer struct {
	ID   string
	Addr string
}

// ParsePeers reads --cluster-peers: id=host:port,...
func ParsePeers(s string) ([]Peer, error) {
	var out []Peer
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, addr, ok := strings.Cut(part, "=")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("cluster peer %q: want id=host:port", part)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("cluster peer %q: %v", part, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("cluster peer id %q given twice", id)
		}
		seen[id] = true
		out = append(out, Peer{ID: id, Addr: addr})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (o *Options) check() error {
	switch {
	case o.NodeID == "":
		return fmt.Errorf("cluster mode needs --cluster-node-id")
	case o.Bind == "":
		return fmt.Errorf("cluster mode needs --cluster-bind host:port")
	case o.Dir == "" || o.Dir == ":memory:":
		return fmt.Errorf("cluster mode needs a data directory (--dir)")
	}
	if len(o.Peers) > 0 {
		for _, p := range o.Peers {
			if p.ID == o.NodeID {
				return nil
			}
		}
		return fmt.Errorf("--cluster-peers does not name this node (%s)", o.NodeID)
	}
	return nil
}
