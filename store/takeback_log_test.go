package store

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// logReplicator stands for the cluster's log as a leader that is deposed
// now and then sees it. A frame either commits (the leader writes it to
// its file, the follower applies it); or it fails as a change of leader
// does and never reaches the log; or it fails and reaches the log anyway,
// committed by the next leader, which a deposed leader applies as
// anyone's entry once it has taken the frame back (cluster/fsm.go). Until
// it has, every frame fails: a node that does not lead proposes nothing.
type logReplicator struct {
	mu       sync.Mutex
	r        *rand.Rand
	leader   *DB
	follower *DB
	deposed  bool
	late     chan []byte
	counts   [3]int // committed, lost, committed by the next leader
	failure  error
}

func (p *logReplicator) Replicate(frame []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	lost := &ReplicationError{Err: errLeadershipLostForTest}
	if p.deposed {
		return lost
	}
	switch p.r.IntN(6) {
	case 0:
		p.counts[1]++
		p.deposed = true
		p.late <- nil
		return lost
	case 1:
		p.counts[2]++
		if err := p.follower.ApplyReplicated(bytes.Clone(frame)); err != nil && p.failure == nil {
			p.failure = err
		}
		p.deposed = true
		p.late <- bytes.Clone(frame)
		return lost
	}
	p.counts[0]++
	if err := p.leader.AppendOwnFrame(frame); err != nil {
		return err
	}
	if err := p.follower.ApplyReplicated(bytes.Clone(frame)); err != nil && p.failure == nil {
		p.failure = err
	}
	return nil
}

type testError string

func (e testError) Error() string { return string(e) }

const errLeadershipLostForTest = testError("leadership lost")

// applyLate is the deposed leader's state machine: it applies the frame
// the next leader committed (it waits for the take-back, which holds the
// data file's writer), then leads again.
func (p *logReplicator) applyLate(done chan<- struct{}) {
	defer close(done)
	for frame := range p.late {
		var err error
		if frame != nil {
			err = p.leader.ApplyReplicated(frame)
		}
		p.mu.Lock()
		if err != nil && p.failure == nil {
			p.failure = err
		}
		p.deposed = false
		p.leader.SetReadOnly(false)
		p.mu.Unlock()
	}
}

// TestTakenBackFramesLeaveTheLogsStore has writers run random writes of
// every type on a leader whose frames, one in three, fail as a change of
// leader does; half of those reach the cluster's log all the same and the
// leader applies them after taking them back, as a deposed leader does. The
// leader's store, taken-back writes and all, must be the follower's, which
// applied exactly the log, item for item and digest for digest.
func TestTakenBackFramesLeaveTheLogsStore(t *testing.T) {
	leader := openSync(t, t.TempDir(), SyncEverySec)
	defer leader.Close()
	follower := openSync(t, t.TempDir(), SyncEverySec)
	defer follower.Close()
	follower.SetReadOnly(true)
	p := &logReplicator{r: rand.New(rand.NewPCG(37, 6)), leader: leader, follower: follower, late: make(chan []byte, 1)}
	leader.SetReplicator(p)
	applied := make(chan struct{})
	go p.applyLate(applied)
	defer func() { close(p.late); <-applied }()
	rounds := 200
	if testing.Short() {
		rounds = 5
	}
	for round := range rounds {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for step := range 50 {
					leader.Update(func(tx *Tx) error { // a refused or taken-back write is expected
						randomWrites(tx, r, randomKeys, step)
						return nil
					})
				}
			}()
		}
		wg.Wait()
		p.mu.Lock()
		for p.deposed { // let the state machine catch up
			p.mu.Unlock()
			time.Sleep(time.Millisecond)
			p.mu.Lock()
		}
		failure := p.failure
		p.mu.Unlock()
		if failure != nil {
			t.Fatalf("round %d: applying a frame: %v", round, failure)
		}
		want, got := dump(t, follower), dump(t, leader)
		if got != want {
			t.Fatalf("round %d: the leader's store is not the log's:\nlog (follower):\n%s\nleader:\n%s", round, want, got)
		}
		if ld, fd := leader.Digest(), follower.Digest(); ld != fd {
			t.Fatalf("round %d: same items, digests differ: leader %s, follower %s", round, ld, fd)
		}
		leader.txMu.RLock()
		recount := leader.recountDigest()
		leader.txMu.RUnlock()
		if d := leader.Digest(); d != recount {
			t.Fatalf("round %d: the leader's digest %s is not its items' %s", round, d, recount)
		}
	}
	t.Logf("frames committed %d, lost %d, committed by the next leader %d", p.counts[0], p.counts[1], p.counts[2])
}
