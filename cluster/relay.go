package cluster

import (
	"io"
	"net"
	"sync"
	"time"
)

// A follower relays each client's connection, byte for byte, to the
// leader's client port: commands, scripts, blocking calls and pub/sub all
// work as on the leader. When the leader changes the relayed connections
// close, and clients reconnect as after a Redis restart. With
// --cluster-follower-reads a follower serves its clients itself,
// refusing writes as a read-only replica does; without it, a connection
// whose first command is ROLE, INFO or RAFT is served here too (peek.go).

type relay struct {
	leader string // the node relayed to
	up     net.Conn
}

const masterDown = "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n"

// divert is the server's first look at an accepted connection.
func (n *Node) divert(c net.Conn) bool {
	if n.ready.Load() || n.opts.FollowerReads {
		return false
	}
	go n.relay(c)
	return true
}

func (n *Node) relay(c net.Conn) {
	if peekable(c) {
		if name, err := firstCommand(c); err == nil && localFirst[name] {
			n.srv.AdoptReplica(c)
			return
		}
	}
	id, addr := n.leader(5 * time.Second)
	if id == n.opts.NodeID {
		for wait := 0; !n.ready.Load() && wait < 500; wait++ {
			time.Sleep(10 * time.Millisecond)
		}
		if n.ready.Load() {
			n.srv.Adopt(c)
			return
		}
		addr = ""
	}
	var up net.Conn
	var err error
	if addr != "" {
		up, err = n.dialClientPort(addr)
	}
	if addr == "" || err != nil {
		c.Write([]byte(masterDown))
		c.Close()
		return
	}
	n.mu.Lock()
	n.relays[c] = relay{leader: id, up: up}
	n.mu.Unlock()
	var once sync.Once
	end := func() {
		once.Do(func() {
			c.Close()
			up.Close()
			n.mu.Lock()
			delete(n.relays, c)
			n.mu.Unlock()
		})
	}
	go func() {
		io.Copy(up, c)
		end()
	}()
	io.Copy(c, up)
	end()
}

// closeRelays closes the connections relayed to any node but keep ("":
// all of them).
func (n *Node) closeRelays(keep string) {
	n.mu.Lock()
	var stale []relay
	var clients []net.Conn
	for c, r := range n.relays {
		if keep == "" || r.leader != keep {
			stale = append(stale, r)
			clients = append(clients, c)
		}
	}
	n.mu.Unlock()
	for i, r := range stale {
		r.up.Close()
		clients[i].Close()
	}
}
