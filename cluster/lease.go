package cluster

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// The leader's read lease. The leader answers reads from its own store,
// which is the cluster's only while no other node can have been elected.
// A follower that heard from the leader rejects other candidates until a
// heartbeat timeout has passed since (raft's requestVote refuses while it
// knows a leader, which it forgets only then), so once a majority of the
// voters answered a heartbeat this node sent at time t, no other leader
// can exist before t + heartbeat timeout. Each read is checked against the
// monotonic clock when it is served (after it read, before its reply goes
// out): a node that was stopped (SIGSTOP) finds its lease run out the
// moment it resumes, whatever its timers have not noticed yet. The lease
// is half the heartbeat timeout, which leaves the other half for clock
// rates and scheduling. A read that finds the lease lapsed waits for a
// round of heartbeats to a majority (raft's VerifyLeader, one round for
// every read waiting); when that fails the read is refused with
// -TRYAGAIN and nothing read is sent.

// leaseTransport is the Raft transport, noting when each follower last
// answered a heartbeat (or any AppendEntries) of this node's term.
type leaseTransport struct {
	*raft.NetworkTransport
	lease *lease
	rpcs  chan raft.RPC // the requests raft reads (heal.go)
}

func (t *leaseTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	sent := time.Now()
	err := t.NetworkTransport.AppendEntries(id, target, args, resp)
	if err == nil && resp.Success && resp.Term == args.Term {
		t.lease.heard(id, args.Term, sent)
	}
	return err
}

// lease holds, for the term this node leads, when each follower last
// answered, and the moment (monotonic, from base) the lease runs out.
type lease struct {
	base time.Time
	dur  time.Duration

	mu    sync.Mutex
	term  uint64
	times map[raft.ServerID]time.Time
	// voters are the other voters (not this node) of the latest
	// configuration, kept by setVoters as it changes: reading raft's
	// configuration for every answer cost a copy of it each time.
	voters []raft.ServerID

	until     atomic.Int64 // ns since base; 0: no lease
	suspended atomic.Bool  // handing leadership over: no lease
}

func newLease(dur time.Duration) *lease {
	return &lease{base: time.Now(), dur: dur, times: map[raft.ServerID]time.Time{}}
}

// setVoters makes voters (this node aside) those whose answers count.
func (l *lease) setVoters(voters []raft.ServerID) {
	l.mu.Lock()
	l.voters = voters
	l.mu.Unlock()
}

// majority is how many voters, this node included, the lease needs.
func (l *lease) majority() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return (len(l.voters)+1)/2 + 1
}

// heard notes that follower id answered, in term, a request sent at sent.
func (l *lease) heard(id raft.ServerID, term uint64, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if term != l.term {
		if term < l.term {
			return
		}
		l.term = term
		clear(l.times)
		l.until.Store(0)
	}
	if sent.After(l.times[id]) {
		l.times[id] = sent
	}
	voters := l.voters
	need := (len(voters)+1)/2 + 1 - 1 // a majority of all voters, this node aside
	var got []time.Time
	for _, v := range voters {
		if t, ok := l.times[v]; ok {
			got = append(got, t)
		}
	}
	if need <= 0 || len(got) < need {
		return
	}
	slices.SortFunc(got, func(a, b time.Time) int { return b.Compare(a) })
	until := int64(got[need-1].Sub(l.base) + l.dur)
	if until > l.until.Load() && !l.suspended.Load() {
		l.until.Store(until)
	}
}

// reset drops the lease: leadership starts or ends.
func (l *lease) reset() {
	l.mu.Lock()
	l.term = 0
	clear(l.times)
	l.until.Store(0)
	l.mu.Unlock()
}

// suspend ends the lease for as long as this node leads.
func (l *lease) suspend() {
	l.suspended.Store(true)
	l.until.Store(0)
}

// current reports whether the lease holds now.
func (l *lease) current() bool {
	if l.suspended.Load() {
		return false
	}
	u := l.until.Load()
	return u > 0 && int64(time.Since(l.base)) < u
}

// LeaseError refuses a read on a node that could not confirm it still
// leads.
type LeaseError struct{ Err error }

func (e *LeaseError) Error() string { return "read refused: " + e.Err.Error() }
func (e *LeaseError) Unwrap() error { return e.Err }

// RedisReply is the refused read's reply.
func (e *LeaseError) RedisReply() string {
	return "TRYAGAIN this node could not confirm it still leads the cluster, so it did not answer from its store; retry (reconnect to reach the leader)"
}

var errNotServing = errors.New("this node does not serve the cluster's writes")

// readGate is the server's read gate: a read served by this node as the
// leader's is answered only while the lease holds or a round of
// heartbeats confirms it. A follower serving its own reads
// (--cluster-follower-reads) answers from its store as a replica does.
func (n *Node) readGate() error {
	if !n.ready.Load() {
		if n.opts.FollowerReads {
			if n.healing.Load() {
				return HealingError{}
			}
			return nil
		}
		return &LeaseError{Err: errNotServing}
	}
	if !n.serving() {
		// Raft moved to a term this node has not caught up in (lead):
		// deposed, or elected again.
		n.leaseRefusals.Add(1)
		return &LeaseError{Err: errNotServing}
	}
	if n.lease.current() {
		return nil
	}
	n.leaseWaits.Add(1)
	if err := n.confirmLead(); err != nil {
		n.leaseRefusals.Add(1)
		return &LeaseError{Err: err}
	}
	if !n.ready.Load() {
		n.leaseRefusals.Add(1)
		return &LeaseError{Err: errNotServing}
	}
	return nil
}

// confirmRound is one VerifyLeader, shared by the reads that asked before
// it started.
type confirmRound struct {
	done chan struct{}
	err  error
}

// confirmLead returns once a round of heartbeats that started after the
// call confirmed this node leads, or the error that says it may not.
// Reads waiting meanwhile share the next round.
func (n *Node) confirmLead() error {
	n.confirmMu.Lock()
	r := n.confirmNext
	if r == nil {
		r = &confirmRound{done: make(chan struct{})}
		n.confirmNext = r
	}
	if !n.confirming {
		n.confirming = true
		n.confirmNext = nil
		go n.runConfirm(r)
	}
	n.confirmMu.Unlock()
	t := time.NewTimer(2 * n.electionBound())
	defer t.Stop()
	select {
	case <-r.done:
		return r.err
	case <-n.done:
		return errStopping
	case <-t.C:
		return errTimedOut
	}
}

func (n *Node) runConfirm(r *confirmRound) {
	for r != nil {
		r.err = n.await(n.raft.VerifyLeader(), n.electionBound())
		close(r.done)
		n.confirmMu.Lock()
		r = n.confirmNext
		n.confirmNext = nil
		n.confirming = r != nil
		n.confirmMu.Unlock()
	}
}

// refreshVoters gives the lease the voters of the latest configuration:
// when the node starts, when it takes the lead, when the leader adds or
// removes a peer (raft's PeerObservation) and when a configuration entry
// is applied (fsm.StoreConfiguration, which also sees a voter's suffrage
// change). Each change is of one server, so a majority of the
// configuration before it and one of the configuration after it share a
// node: a lease counted with either holds off any other leader.
func (n *Node) refreshVoters() { n.lease.setVoters(n.otherVoters()) }

// otherVoters lists the voters of the latest configuration but this node.
func (n *Node) otherVoters() []raft.ServerID {
	var out []raft.ServerID
	for _, s := range n.members() {
		if s.Suffrage == raft.Voter && string(s.ID) != n.opts.NodeID {
			out = append(out, s.ID)
		}
	}
	return out
}
