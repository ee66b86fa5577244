package cluster

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"

	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/store"
)

// Node is this process's member of the cluster.
type Node struct {
	opts    Options
	log     *slog.Logger
	db      *store.DB
	srv     *server.Server
	raft    *raft.Raft
	trans   *leaseTransport
	logs    *raftboltdb.BoltStore // term and vote (raft's StableStore)
	entries *logStore             // the log's entries (logstore.go)
	snaps   *raft.FileSnapshotStore

	ready atomic.Bool // leading, with every earlier entry applied: serves writes
	// leadTerm is the term ready was set for (leadership.go).
	leadTerm atomic.Uint64
	clock    atomic.Int64  // the latest leader clock (unix ms) an entry carried
	nonce    atomic.Uint64 // numbers this node's proposals
	// gap: an entry applied here is missing from the data file (fsm.go).
	gap atomic.Bool
	// installs counts snapshots installed from the leader (RAFT STATUS).
	installs atomic.Int64
	// storeIndex is the last entry the store applied. Raft's applied
	// index runs ahead of it: raft counts a batch applied once it is
	// handed to the state machine, before it is.
	storeIndex atomic.Uint64
	// The leader's digests this node compared its store with (digest.go).
	digestMatches, digestMismatches atomic.Int64
	diverged                        atomic.Bool // QLESSD_TEST_DIVERGE_AT did its change
	// Re-installing the leader's snapshot after a digest differed
	// (heal.go): under way, refusing appends meanwhile, done so far, and
	// the index up to which digests are not compared after one.
	healing, refusing atomic.Bool
	reinstalls        atomic.Int64
	quietUntil        atomic.Uint64
	resendMu          sync.Mutex // one LEADER-RESEND snapshot at a time

	// The read lease (lease.go): reads that waited for a round of
	// heartbeats, and those refused.
	lease         *lease
	leaseWaits    atomic.Int64
	leaseRefusals atomic.Int64
	confirmMu     sync.Mutex
	confirmNext   *confirmRound // the round reads wait for, not started yet
	confirming    bool          // a round runs

	mu       sync.Mutex
	inflight *proposal          // the frame being replicated (replicate.go)
	addrs    map[string]string  // node id -> client address
	relays   map[net.Conn]relay // relayed clients (relay.go)
	online   map[string]bool    // followers' heartbeats, as the leader sees them
	onLead   []func()

	hooks   testHooks
	raftLog *slogWriter
	obs     chan raft.Observation
	done    chan struct{}
	wg      sync.WaitGroup
}

// Start joins srv's store to the cluster: from here on the store takes
// writes only while this node leads, and srv relays its clients to the
// leader otherwise. Call it after server.New and before srv.Start.
func Start(srv *server.Server, opts Options) (*Node, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	n := &Node{
		opts: opts, log: opts.Logger.With("cluster_node", opts.NodeID), db: srv.Store(), srv: srv,
		addrs: map[string]string{}, relays: map[net.Conn]relay{}, online: map[string]bool{},
		obs: make(chan raft.Observation, 64), done: make(chan struct{}),
	}
	n.raftLog = &slogWriter{log: n.log}
	n.hooks = readTestHooks()
	n.lease = newLease(n.heartbeat() / 2)
	n.nonce.Store(rand.Uint64())
	n.loadAddrs()
	n.db.SetReadOnly(true)
	if err := n.openRaft(); err != nil {
		return nil, err
	}
	n.refreshVoters()
	n.db.SetReplicator(n)
	srv.SetDivert(n.divert)
	srv.SetReadGate(n.readGate)
	srv.Table().SetReplication(n.replicationState)
	srv.Table().Add(raftCommand(n))
	n.wg.Add(2)
	go n.watch()
	go n.checkDigests()
	if opts.Sync == store.SyncEverySec {
		n.wg.Add(1)
		go n.syncLogEverySecond()
	}
	if opts.FollowerReads {
		n.wg.Add(1)
		go n.bridge()
	}
	return n, nil
}

func (n *Node) raftDir() string { return filepath.Join(n.opts.Dir, "raft") }

func (n *Node) openRaft() error {
	dir := n.raftDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logw := n.raftLog
	var err error
	n.logs, err = raftboltdb.New(raftboltdb.Options{
		Path: filepath.Join(dir, "raft.db"), NoSync: n.opts.Sync != store.SyncAlways, BoltOptions: logStoreOptions(),
	})
	if err != nil {
		return fmt.Errorf("open the cluster log: %w", err)
	}
	if err := moveLogs(n.logs, filepath.Join(dir, "log")); err != nil {
		n.logs.Close()
		return err
	}
	if n.entries, err = openLogStore(filepath.Join(dir, "log"), n.opts.Sync == store.SyncAlways); err != nil {
		n.logs.Close()
		return fmt.Errorf("open the cluster log: %w", err)
	}
	if n.snaps, err = raft.NewFileSnapshotStore(dir, 2, logw); err != nil {
		return fmt.Errorf("open the cluster snapshots: %w", err)
	}
	// The data file holds at least the last snapshot (raftConfig).
	if metas, err := n.snaps.List(); err == nil && len(metas) > 0 {
		n.storeIndex.Store(metas[0].Index)
	}
	advertise, err := net.ResolveTCPAddr("tcp", n.opts.Bind)
	if err != nil {
		return fmt.Errorf("--cluster-bind: %w", err)
	}
	var tcp *raft.NetworkTransport
	if n.opts.TLS != nil {
		tcp, err = n.newTLSTransport(advertise)
	} else {
		tcp, err = raft.NewTCPTransport(n.opts.Bind, advertise, 4, 5*time.Second, logw)
	}
	if err != nil {
		return fmt.Errorf("listen for the cluster on %s: %w", n.opts.Bind, err)
	}
	n.trans = &leaseTransport{NetworkTransport: tcp, lease: n.lease, rpcs: make(chan raft.RPC)}
	go n.trans.filterRPCs(n)
	conf := n.raftConfig()
	had, err := raft.HasExistingState(n.entries, n.logs, n.snaps)
	if err != nil {
		return err
	}
	// Recent entries stay in memory: the leader sends each to every
	// follower, and reading them back from BoltDB cost it a twentieth
	// of its time under load.
	cached, err := raft.NewLogCache(1024, n.entries)
	if err != nil {
		return err
	}
	if n.raft, err = raft.NewRaft(conf, (*fsm)(n), cached, n.logs, n.snaps, n.trans); err != nil {
		return fmt.Errorf("start the cluster: %w", err)
	}
	n.raft.RegisterObserver(raft.NewObserver(n.obs, false, nil))
	if !had && len(n.opts.Peers) > 0 {
		var servers []raft.Server
		for _, p := range n.opts.Peers {
			servers = append(servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)})
		}
		if err := n.await(n.raft.BootstrapCluster(raft.Configuration{Servers: servers}), 10*time.Second); err != nil && err != raft.ErrCantBootstrap {
			return fmt.Errorf("bootstrap the cluster: %w", err)
		}
	}
	return nil
}

// logStoreOptions: BoltDB holds term and vote (and, in a node of an
// earlier version, the entries until moveLogs takes them out). Its list
// of free pages stays in memory, rebuilt by a scan at open, instead of
// being written with every transaction: after the entries are moved out
// most of the file is free pages.
func logStoreOptions() *bbolt.Options {
	return &bbolt.Options{NoFreelistSync: true, FreelistType: bbolt.FreelistMapType}
}

// defaultHeartbeat is cluster-heartbeat-timeout's default: raft's, which
// holds on a loaded machine (at 500 ms, with raft's lease at half of it,
// leaders stepped down with no fault on a busy 2-core machine).
const defaultHeartbeat = time.Second

// heartbeat is the heartbeat timeout in force.
func (n *Node) heartbeat() time.Duration {
	if n.opts.HeartbeatTimeout > 0 {
		return n.opts.HeartbeatTimeout
	}
	return defaultHeartbeat
}

// raftConfig: the timeouts follow the heartbeat timeout: a follower that
// hears from no leader for about a heartbeat timeout starts an election,
// and a leader that hears from no majority for as long steps down (raft's
// largest lease, so a leader starved of CPU for a moment keeps leading;
// reads have their own, shorter lease: lease.go).
func (n *Node) raftConfig() *raft.Config {
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(n.opts.NodeID)
	hb := n.heartbeat()
	conf.HeartbeatTimeout = hb
	conf.ElectionTimeout = hb
	conf.LeaderLeaseTimeout = hb
	conf.CommitTimeout = 5 * time.Millisecond
	if n.opts.SnapshotThreshold > 0 {
		conf.SnapshotThreshold = n.opts.SnapshotThreshold
	}
	if n.opts.TrailingLogs > 0 {
		conf.TrailingLogs = n.opts.TrailingLogs
	}
	conf.SnapshotInterval = 10 * time.Second
	// The data file holds what was applied before a restart; the log's
	// entries after the last snapshot are applied again on top, which
	// their records (whole items set or deleted) make harmless.
	conf.NoSnapshotRestoreOnStart = true
	conf.Logger = hclog.New(&hclog.LoggerOptions{Name: "raft", Output: n.raftLog, Level: hclog.Warn})
	return conf
}

// members returns the cluster's configuration; nil when Raft cannot give
// it (stopping).
func (n *Node) members() []raft.Server {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	return f.Configuration().Servers
}

// replID is the cluster's id for INFO replication, from its members: the
// same on every node.
func replID(servers []raft.Server) string {
	h := sha1.New()
	for _, s := range servers {
		io.WriteString(h, string(s.ID)+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// followersOnlineLocked counts the members other than this node that answer
// the leader's heartbeats. mu held.
func (n *Node) followersOnlineLocked(servers []raft.Server) int {
	on := 0
	for _, s := range servers {
		if string(s.ID) != n.opts.NodeID && n.onlineLocked(string(s.ID)) {
			on++
		}
	}
	return on
}

// Close leaves the cluster's work to the others: it stops Raft and closes
// the log. The store is the server's to close.
func (n *Node) Close() error {
	if n == nil {
		return nil
	}
	select {
	case <-n.done:
		return nil
	default:
	}
	close(n.done)
	err := n.awaitShutdown()
	n.wg.Wait()
	n.closeRelays("")
	if cerr := n.logs.Close(); err == nil {
		err = cerr
	}
	if cerr := n.entries.Close(); err == nil {
		err = cerr
	}
	return err
}

// Leave hands leadership to another node before this one stops, so the
// cluster does not wait out a heartbeat timeout; a follower does nothing.
func (n *Node) Leave() {
	if n == nil || n.raft.State() != raft.Leader {
		return
	}
	// The node it hands over to is elected at once, not a heartbeat
	// timeout after this one was last heard: reads confirm first.
	n.lease.suspend()
	if err := n.await(n.raft.LeadershipTransfer(), n.electionBound()); err != nil {
		n.log.Warn("handing leadership over before stopping failed", "err", err)
	}
}

// OnLead registers fn to run each time this node starts leading, once it
// serves writes.
func (n *Node) OnLead(fn func()) {
	n.mu.Lock()
	n.onLead = append(n.onLead, fn)
	n.mu.Unlock()
}

// slogWriter passes Raft's log lines to the server's logger, at their
// own level, each kind of line at most once per quiet period: a node that
// is down makes Raft report every failed heartbeat.
type slogWriter struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]time.Time
}

const raftLogQuiet = 10 * time.Second

func (w *slogWriter) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\r\n")
	level, msg := slog.LevelInfo, line
	for tag, l := range map[string]slog.Level{"[ERROR]": slog.LevelError, "[WARN]": slog.LevelWarn, "[INFO]": slog.LevelInfo, "[DEBUG]": slog.LevelDebug} {
		if i := strings.Index(line, tag); i >= 0 {
			level, msg = l, strings.TrimSpace(line[i+len(tag):])
			break
		}
	}
	kind, _, _ := strings.Cut(msg, ":")
	if len(kind) > 80 {
		kind = kind[:80]
	}
	w.mu.Lock()
	if w.seen == nil {
		w.seen = map[string]time.Time{}
	}
	now := time.Now()
	last, ok := w.seen[kind]
	if !ok || now.Sub(last) > raftLogQuiet {
		w.seen[kind] = now
	} else {
		level = slog.LevelDebug
	}
	w.mu.Unlock()
	w.log.Log(context.Background(), level, msg, "source", "raft")
	return len(p), nil
}
