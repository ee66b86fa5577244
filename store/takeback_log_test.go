package store

import (
	"bytes"
	"math/rand/v2"
	"strconv"
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

// TestSnapshotInstalledOverATakeBack installs the leader's snapshot on a
// deposed leader whose write is still on its way to the cluster, as raft
// may while a new leader catches it up: the install waits for the write
// to settle, and the write, failed, is taken back before the snapshot
// replaces the store, not over it.
func TestSnapshotInstalledOverATakeBack(t *testing.T) {
	src := openSync(t, t.TempDir(), SyncEverySec)
	defer src.Close()
	if err := src.Update(func(tx *Tx) error {
		tx.SetString("k", "from the snapshot", 0, false)
		z, _ := tx.OpenZSet("z")
		for i := range 200 {
			z.Put("m"+strconv.Itoa(i), float64(i))
		}
		z.Flush()
		z.Release()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := src.WriteSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	db := openSync(t, t.TempDir(), SyncEverySec)
	defer db.Close()
	g := &gateReplicator{leader: db, entered: make(chan struct{}), outcome: make(chan error)}
	db.SetReplicator(g)
	wrote := make(chan error)
	go func() {
		wrote <- db.Update(func(tx *Tx) error {
			tx.SetString("k", "speculative", 0, false)
			z, _ := tx.OpenZSet("z")
			z.Put("m7", 700)
			z.Put("mine", 1)
			z.Flush()
			z.Release()
			return nil
		})
	}()
	<-g.entered
	restored := make(chan error)
	go func() { restored <- db.RestoreSnapshot(bytes.NewReader(snap.Bytes())) }()
	g.outcome <- &ReplicationError{Err: errLeadershipLostForTest}
	if err := <-wrote; err == nil {
		t.Fatal("a write the cluster did not take was acknowledged")
	}
	if err := <-restored; err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, db), dump(t, src); got != want {
		t.Fatalf("after the install the store is not the snapshot's:\nsnapshot:\n%s\nstore:\n%s", want, got)
	}
	if got, want := db.Digest(), src.Digest(); got != want {
		t.Fatalf("digest %s, the snapshot's %s", got, want)
	}
}
