package cluster

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// watch follows leadership: this node's (LeaderCh) and the cluster's
// (observations), and makes sure the leader knows this node's client
// address.
func (n *Node) watch() {
	defer n.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-n.done:
			return
		case leads := <-n.raft.LeaderCh():
			if leads {
				if n.ready.Load() {
					// Raft keeps only the latest change: this node
					// lost the lead and won it back meanwhile.
					n.follow()
				}
				n.lead()
			} else {
				n.follow()
			}
		case o := <-n.obs:
			n.observe(o)
		case <-tick.C:
			n.announceSelf()
		}
	}
}

// lead starts serving writes once every entry of earlier terms is applied
// and this node's clock has passed the last one an entry carried, so no
// lock or expiry runs backwards across a change of leader.
//
// It serves for one term (leadTerm): a node that loses the lead and wins
// it back before this goroutine hears of it must not serve in the new
// term on the barrier of the old one, as entries of the terms between may
// not be applied yet: a write run on that store would be proposed after
// them, and its wait for its own commit would hold the data file's writer
// that applying them needs (the node stopped applying for good), and a
// digest it proposed would differ from every follower's.
func (n *Node) lead() {
	n.refreshVoters()
	var term uint64
	for {
		term = n.raft.CurrentTerm()
		err := n.await(n.barrier(10*time.Second), 15*time.Second)
		if err == nil {
			break
		}
		if err == errStopping || n.raft.State() != raft.Leader {
			return
		}
		n.log.Warn("elected, but the log is not caught up yet; trying again", "err", err)
	}
	for wait := time.Duration(0); time.Now().UnixMilli() <= n.clock.Load() && wait < 5*time.Second; wait += 10 * time.Millisecond {
		select {
		case <-n.done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	n.holdLead()
	if n.raft.State() != raft.Leader || n.stopping() {
		return
	}
	if n.raft.CurrentTerm() != term {
		// The next LeaderCh signal, true, runs lead again for this term.
		n.log.Warn("lost the lead and won it back while taking it; serving once a barrier of the new term is applied", "term", term,
			"now", n.raft.CurrentTerm())
		return
	}
	if n.healing.Load() {
		go n.handOver() // its store is not the cluster's (heal.go)
		return
	}
	n.leadTerm.Store(term)
	n.db.SetReadOnly(false)
	n.ready.Store(true)
	n.closeRelays("")
	n.log.Info("leading the cluster", "term", n.raft.Stats()["term"])
	if n.addrOf(n.opts.NodeID) != n.opts.ClientAddr {
		n.proposeAddr(n.opts.NodeID, n.opts.ClientAddr)
	}
	n.mu.Lock()
	hooks := append([]func(){}, n.onLead...)
	n.mu.Unlock()
	for _, fn := range hooks {
		go fn()
	}
}

// serving reports whether this node serves writes in the term raft is
// in: its lead, not one it lost and won back since (lead).
func (n *Node) serving() bool {
	return n.ready.Load() && n.raft.CurrentTerm() == n.leadTerm.Load()
}

// follow stops local writes; clients that wrote here reconnect and are
// relayed to the new leader.
func (n *Node) follow() {
	if d := n.hooks.stepDownDelay; d > 0 && n.ready.Load() {
		time.Sleep(d)
	}
	n.lease.reset()
	n.db.SetReadOnly(true)
	if n.ready.Swap(false) {
		n.log.Info("no longer leading the cluster; closing client connections")
		n.srv.DropClients()
	}
}

func (n *Node) observe(o raft.Observation) {
	switch d := o.Data.(type) {
	case raft.LeaderObservation:
		n.closeRelays(string(d.LeaderID))
		n.announceSelf()
	case raft.PeerObservation:
		n.refreshVoters()
	case raft.FailedHeartbeatObservation:
		n.mu.Lock()
		n.online[string(d.PeerID)] = false
		n.mu.Unlock()
	case raft.ResumedHeartbeatObservation:
		n.mu.Lock()
		n.online[string(d.PeerID)] = true
		n.mu.Unlock()
	}
}

// proposeAddr puts a node's client address in the log; the leader only.
func (n *Node) proposeAddr(id, addr string) error {
	return n.await(n.raft.Apply(encodeAddr(n.now(), addrEntry{ID: id, Addr: addr}), 5*time.Second), 5*time.Second+n.electionBound())
}

// announceSelf tells the leader this follower's client address, until the
// log holds it.
func (n *Node) announceSelf() {
	if n.ready.Load() || n.opts.ClientAddr == "" || n.addrOf(n.opts.NodeID) == n.opts.ClientAddr {
		return
	}
	_, lid := n.raft.LeaderWithID()
	addr := n.addrOf(string(lid))
	if lid == "" || string(lid) == n.opts.NodeID || addr == "" {
		return
	}
	go func() {
		if err := n.sendToLeader(addr, "RAFT", "ANNOUNCE", n.opts.NodeID, n.opts.ClientAddr); err != nil {
			n.log.Debug("telling the leader this node's client address failed", "err", err)
		}
	}()
}

// sendToLeader runs one command on the leader over its client port.
func (n *Node) sendToLeader(addr string, args ...string) error {
	line, err := n.askLeader(addr, 5*time.Second, args...)
	if err == nil && strings.HasPrefix(line, "-") {
		err = fmt.Errorf("%s", line[1:])
	}
	return err
}

// askLeader runs one command on the leader over its client port and
// returns its reply's first line (a status or an error).
func (n *Node) askLeader(addr string, timeout time.Duration, args ...string) (string, error) {
	c, err := n.dialClientPort(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	r := bufio.NewReader(c)
	if n.opts.Password != "" {
		if err := roundTrip(c, r, "AUTH", n.opts.Password); err != nil {
			return "", err
		}
	}
	if err := send(c, args...); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

func send(c net.Conn, args ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_, err := c.Write([]byte(b.String()))
	return err
}

func roundTrip(c net.Conn, r *bufio.Reader, args ...string) error {
	if err := send(c, args...); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		return fmt.Errorf("%s", strings.TrimSpace(line[1:]))
	}
	return nil
}
