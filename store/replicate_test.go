package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

// pipeReplicator stands for a cluster of the leader and the followers
// given: each frame is written to the leader's file, as the cluster's
// apply does, and applied to every follower; fail makes the next frame
// fail as a change of leader does.
type pipeReplicator struct {
	mu        sync.Mutex
	leader    *DB
	followers []*DB
	fail      bool
	frames    int
}

func (p *pipeReplicator) Replicate(frame []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		p.fail = false
		return &ReplicationError{Err: errors.New("leadership lost")}
	}
	p.frames++
	if err := p.leader.AppendOwnFrame(frame); err != nil {
		return err
	}
	for _, f := range p.followers {
		if err := f.ApplyReplicated(bytes.Clone(frame)); err != nil {
			return err
		}
	}
	return nil
}

func dump(t *testing.T, db *DB) string {
	t.Helper()
	var s string
	if err := db.View(func(tx *Tx) error { s = dumpAll(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReplicatedFramesRebuildTheStore applies random writes of every type
// on a leader and checks that a follower applying its frames, a node
// restoring its snapshot and then applying the frames after it, and each
// of them reopened from its data file, hold the leader's keyspace.
func TestReplicatedFramesRebuildTheStore(t *testing.T) {
	t.Parallel()
	leader := openSync(t, t.TempDir(), SyncEverySec)
	defer leader.Close()
	fdir, sdir := t.TempDir(), t.TempDir()
	follower := openSync(t, fdir, SyncEverySec)
	late := openSync(t, sdir, SyncEverySec)
	defer func() { follower.Close(); late.Close() }()
	p := &pipeReplicator{leader: leader, followers: []*DB{follower}}
	leader.SetReplicator(p)
	r := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 8; round++ {
		for step := 0; step < 60; step++ {
			if err := leader.Update(func(tx *Tx) error {
				randomWrites(tx, r, randomKeys, step)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if round == 3 {
			var snap bytes.Buffer
			if err := leader.WriteSnapshot(&snap); err != nil {
				t.Fatal(err)
			}
			if err := late.RestoreSnapshot(&snap); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			p.followers = append(p.followers, late)
			p.mu.Unlock()
		}
		want := dump(t, leader)
		if got := dump(t, follower); got != want {
			t.Fatalf("round %d: follower differs:\nleader:\n%s\nfollower:\n%s", round, want, got)
		}
		if round >= 3 {
			if got := dump(t, late); got != want {
				t.Fatalf("round %d: restored node differs:\nleader:\n%s\nrestored:\n%s", round, want, got)
			}
		}
	}
	want := dump(t, leader)
	p.mu.Lock()
	p.followers = nil
	p.mu.Unlock()
	follower.Close()
	late.Close()
	follower, late = openSync(t, fdir, SyncEverySec), openSync(t, sdir, SyncEverySec)
	for name, db := range map[string]*DB{"follower": follower, "restored node": late} {
		if got := dump(t, db); got != want {
			t.Fatalf("%s reopened differs:\nleader:\n%s\nreopened:\n%s", name, want, got)
		}
	}
}

// TestReplicationFailureTakesBack checks that a write the cluster did not
// take is taken back, its client told so, and that a read-only node
// refuses writes in a replica's words.
func TestReplicationFailureTakesBack(t *testing.T) {
	leader := openSync(t, t.TempDir(), SyncEverySec)
	defer leader.Close()
	p := &pipeReplicator{leader: leader}
	leader.SetReplicator(p)
	if err := leader.Update(func(tx *Tx) error { tx.SetString("k", "1", 0, false); return nil }); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.fail = true
	p.mu.Unlock()
	err := leader.Update(func(tx *Tx) error { tx.SetString("k", "2", 0, false); return nil })
	var re *ReplicationError
	if !errors.As(err, &re) {
		t.Fatalf("write during a change of leader: %v, want a ReplicationError", err)
	}
	if got := dump(t, leader); got != "k 115:1\n" {
		t.Fatalf("after the failed write the store holds %q", got)
	}
	if err := leader.WritesRefused(); err != nil {
		t.Fatalf("a change of leader must not refuse writes as a file error does: %v", err)
	}
	leader.SetReadOnly(true)
	err = leader.Update(func(tx *Tx) error { tx.SetString("k", "3", 0, false); return nil })
	if !errors.As(err, new(ReadOnlyError)) || err.Error() != "READONLY You can't write against a read only replica." {
		t.Fatalf("write on a read-only node: %v", err)
	}
	if err := leader.WritesRefused(); !errors.As(err, new(ReadOnlyError)) {
		t.Fatalf("WritesRefused on a read-only node: %v", err)
	}
}

// gateReplicator holds each frame until told how it went.
type gateReplicator struct {
	leader  *DB
	entered chan struct{}
	outcome chan error
}

func (g *gateReplicator) Replicate(frame []byte) error {
	g.entered <- struct{}{}
	if err := <-g.outcome; err != nil {
		return err
	}
	return g.leader.AppendOwnFrame(frame)
}

// TestSnapshotGivenUpWhenItsWriteIsTakenBack checks that a snapshot that
// copied a write on its way to the cluster is given up when the cluster
// does not take it, and kept when it does.
func TestSnapshotGivenUpWhenItsWriteIsTakenBack(t *testing.T) {
	for _, fail := range []bool{true, false} {
		db := openSync(t, t.TempDir(), SyncEverySec)
		g := &gateReplicator{leader: db, entered: make(chan struct{}), outcome: make(chan error)}
		db.SetReplicator(g)
		wrote := make(chan error)
		go func() {
			wrote <- db.Update(func(tx *Tx) error { tx.SetString("k", "speculative", 0, false); return nil })
		}()
		<-g.entered
		snapped, copied := make(chan error), make(chan struct{})
		afterSnapshotCopy = func() { close(copied) }
		var buf bytes.Buffer
		go func() { snapped <- db.WriteSnapshot(&buf) }()
		<-copied
		var err error
		if fail {
			err = &ReplicationError{Err: errors.New("leadership lost")}
		}
		g.outcome <- err
		werr, serr := <-wrote, <-snapped
		if fail && (werr == nil || !errors.Is(serr, errSnapshotTakenBack)) {
			t.Fatalf("write taken back: write %v, snapshot %v; want both to fail", werr, serr)
		}
		if !fail && (werr != nil || serr != nil || !bytes.Contains(buf.Bytes(), []byte("speculative"))) {
			t.Fatalf("write committed: write %v, snapshot %v (holds it: %v)", werr, serr, bytes.Contains(buf.Bytes(), []byte("speculative")))
		}
		db.Close()
	}
	afterSnapshotCopy = func() {}
}
