package cluster

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/qlessd/qlessd/store"
)

// fsm is the Node as Raft's state machine.
type fsm Node

func (f *fsm) node() *Node { return (*Node)(f) }

// Apply applies one committed entry. A frame this node proposed is in its
// store already: it only goes to the data file.
func (f *fsm) Apply(l *raft.Log) any {
	n := f.node()
	if l.Type != raft.LogCommand {
		return nil
	}
	defer n.storeIndex.Store(l.Index)
	d, err := decodeEntry(l.Data)
	if err != nil {
		n.log.Error("cluster log entry not applied", "index", l.Index, "err", err)
		return err
	}
	n.noteClock(d.clock)
	switch d.kind {
	case entryAddr:
		n.setAddr(d.addr.ID, d.addr.Addr)
		return nil
	case entryDigest:
		n.compareDigest(l.Index, d.digest)
		return nil
	}
	n.mu.Lock()
	if p := n.inflight; p != nil && p.nonce == d.nonce && !p.undone {
		if err := n.db.AppendOwnFrame(d.frame); err != nil {
			n.fileGap(err)
		}
		p.committed = true
		n.mu.Unlock()
		return nil
	}
	n.mu.Unlock()
	if at := n.hooks.divergeAt; at > 0 && l.Index >= at && n.diverged.CompareAndSwap(false, true) {
		defer n.db.DivergeForTest("diverged-by-test", "x")
	}
	if err := n.db.ApplyReplicated(d.frame); err != nil {
		var fe *store.FileError
		if errors.As(err, &fe) {
			n.fileGap(err)
			return nil
		}
		if errors.Is(err, store.ErrClosed) {
			return err // stopping: the log keeps the entry for the next start
		}
		// The store would part from the cluster's: stop rather than
		// serve it.
		n.log.Error("applying a committed frame failed; stopping", "index", l.Index, "err", err)
		panic(fmt.Sprintf("cluster: apply of entry %d failed: %v", l.Index, err))
	}
	return nil
}

// StoreConfiguration is raft's word that a configuration entry was
// applied (raft.ConfigurationStore): the lease counts its voters.
func (f *fsm) StoreConfiguration(index uint64, _ raft.Configuration) { f.node().refreshVoters() }

// errFileGap keeps the log from being cut while the data file misses an
// entry: a restart applies every entry after the last snapshot again,
// the missing one included.
var errFileGap = errors.New("the data file missed an entry since it was last complete; no snapshot until a restart")

// fileGap notes that an applied entry did not reach the data file.
func (n *Node) fileGap(err error) {
	if !n.gap.Swap(true) {
		n.log.Error("writing an entry to the data file failed; the store holds it, and the cluster's log keeps it for the next start (no snapshots until then)", "err", err)
	}
}

// snapshotHeader is what a snapshot holds besides the store: the nodes'
// client addresses and the clock.
type snapshotHeader struct {
	Addrs map[string]string `json:"addrs"`
	Clock int64             `json:"clock"`
	Index uint64            `json:"index,omitempty"` // the last entry the store holds
}

// Snapshot is taken between entries. The data file is synced first: after
// a restart the node starts from it and applies only the entries after
// this snapshot (raftConfig).
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	n := f.node()
	if n.gap.Load() {
		return nil, errFileGap
	}
	if err := n.db.SyncDataFile(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	h := snapshotHeader{Addrs: make(map[string]string, len(n.addrs)), Clock: n.clock.Load(), Index: n.storeIndex.Load()}
	for k, v := range n.addrs {
		h.Addrs[k] = v
	}
	n.mu.Unlock()
	return &snapshot{n: n, header: h}, nil
}

// Restore installs a snapshot sent by the leader.
func (f *fsm) Restore(rc io.ReadCloser) error {
	n := f.node()
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	var size uint32
	if err := binary.Read(br, binary.BigEndian, &size); err != nil {
		return fmt.Errorf("read snapshot header: %w", err)
	}
	hb := make([]byte, size)
	if _, err := io.ReadFull(br, hb); err != nil {
		return fmt.Errorf("read snapshot header: %w", err)
	}
	var h snapshotHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return fmt.Errorf("read snapshot header: %w", err)
	}
	n.ready.Store(false)
	if err := n.db.RestoreSnapshot(br); err != nil {
		return err
	}
	n.noteClock(h.Clock)
	n.storeIndex.Store(h.Index)
	for id, addr := range h.Addrs {
		n.setAddr(id, addr)
	}
	n.installs.Add(1)
	n.log.Info("installed a snapshot from the leader")
	n.healed()
	return nil
}

type snapshot struct {
	n      *Node
	header snapshotHeader
}

func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	err := s.write(sink)
	if err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *snapshot) write(w io.Writer) error {
	hb, err := json.Marshal(s.header)
	if err != nil {
		return err
	}
	if err := binary.Write(w, binary.BigEndian, uint32(len(hb))); err != nil {
		return err
	}
	if _, err := w.Write(hb); err != nil {
		return err
	}
	return s.n.db.WriteSnapshot(w)
}

func (s *snapshot) Release() {}
