package cluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Each node's client address is in the log (entryAddr), so every node
// can relay to whichever leads. The map is kept in Dir/raft/addrs.json
// too: entries before the last snapshot are not applied again at start.

func (n *Node) addrsFile() string { return filepath.Join(n.raftDir(), "addrs.json") }

func (n *Node) loadAddrs() {
	b, err := os.ReadFile(n.addrsFile())
	if err != nil {
		return
	}
	json.Unmarshal(b, &n.addrs)
	if n.addrs == nil {
		n.addrs = map[string]string{}
	}
}

// setAddr records a node's client address.
func (n *Node) setAddr(id, addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.addrs[id] == addr {
		return
	}
	n.addrs[id] = addr
	b, _ := json.Marshal(n.addrs)
	tmp := n.addrsFile() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err == nil {
		os.Rename(tmp, n.addrsFile())
	}
}

func (n *Node) addrOf(id string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addrs[id]
}

// leader returns the leader's id and client address, waiting up to wait
// for both to be known.
func (n *Node) leader(wait time.Duration) (id, addr string) {
	deadline := time.Now().Add(wait)
	for {
		_, lid := n.raft.LeaderWithID()
		id = string(lid)
		if id != "" {
			if addr = n.addrOf(id); addr != "" {
				return id, addr
			}
		}
		if time.Now().After(deadline) {
			return id, ""
		}
		select {
		case <-n.done:
			return id, ""
		case <-time.After(20 * time.Millisecond):
		}
	}
}
