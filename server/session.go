package server

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

var nextClientID atomic.Int64

// session is one client connection's state. Fields without a lock are only
// touched by the connection's own goroutine; what other clients read
// (CLIENT LIST, KILL) is atomic or under mu.
type session struct {
	srv     *Server
	id      int64
	netConn net.Conn
	addr    string
	laddr   string
	created time.Time
	lastCmd atomic.Int64 // unix ms of the last command
	db      atomic.Int64
	authed  atomic.Bool
	user    atomic.Pointer[commands.User] // the ACL user it runs as
	// resp3: HELLO 3 switched the connection to RESP3. Atomic because a
	// blocked command's reply is written by the transaction serving it.
	resp3 atomic.Bool

	// owned are the rooms of the command about to be processed, which its
	// run may hand to the store (store.Room); process takes them, so they
	// never outlive it.
	owned []store.Room

	mu      sync.Mutex
	name    string
	cmdName string // last command, for CLIENT LIST

	// Pub/sub, guarded by the server's pubsub.mu. out exists from the first
	// SUBSCRIBE on: from then the connection is served by serveDetached.
	channels map[string]struct{}
	patterns map[string]struct{}
	shards   map[string]struct{}
	out      *outbox
	dc       commandReader
	detached bool

	monitoring atomic.Bool // MONITOR: in the server's monitors

	bufs connBufs // for CLIENT LIST (client_bufs.go)

	// Set for connections the event loop serves (loop.go): lc is the
	// connection, batch the loop's open transaction while one of this
	// connection's commands runs in it.
	lc    *loopConn
	batch *loopBatch
	// own serves the connection from a goroutine of its own (own_conn.go).
	own *ownConn

	multi      *multiState
	multiLen   atomic.Int64          // queued commands, -1 outside MULTI
	watched    map[store.KeyRef]bool // key -> existed when watched
	watchDirty atomic.Bool
	replyOff   bool // CLIENT REPLY OFF
	replySkip  bool // CLIENT REPLY SKIP: the next command's reply

	closeAfterReply bool // CLIENT KILL of itself
	// replica: a cluster follower serves it as a read-only replica's
	// (AdoptReplica); its reads are not gated.
	replica  bool
	dropOnce sync.Once
}

// commandReader is where a detached connection's commands come from.
type commandReader interface {
	ReadCommand() ([][]byte, error)
}

// newSession starts the session of a connection.
func newSession(srv *Server, nc net.Conn, addr string) *session {
	s := &session{srv: srv, id: nextClientID.Add(1), netConn: nc, addr: addr, created: time.Now(),
		channels: map[string]struct{}{}, patterns: map[string]struct{}{}, shards: map[string]struct{}{}}
	if la := nc.LocalAddr(); la != nil {
		s.laddr = la.String()
	}
	s.user.Store(srv.acl.Default)
	s.authed.Store(!srv.acl.NeedAuth())
	s.multiLen.Store(-1)
	s.lastCmd.Store(time.Now().UnixMilli())
	return s
}

// replyBuf is a pooled buffer for a reply to s, in s's protocol.
func (s *session) replyBuf() *bufWriter {
	b := replyBufs.Get().(*bufWriter)
	b.r3 = s.resp3.Load()
	return b
}

// proto is the RESP version the connection speaks, 2 or 3.
func (s *session) proto() int {
	if s.resp3.Load() {
		return 3
	}
	return 2
}

func (s *session) ID() int64   { return s.id }
func (s *session) DB() int     { return int(s.db.Load()) }
func (s *session) SetDB(i int) { s.db.Store(int64(i)) }

// subscriptions counts channels and patterns, as the replies report it.
func (s *session) subscriptions() int {
	s.srv.pubsub.mu.RLock()
	defer s.srv.pubsub.mu.RUnlock()
	return s.subsLocked()
}

// subsLocked is subscriptions for callers holding the pubsub lock. Any
// kind of subscription puts a client in subscribe mode.
func (s *session) subsLocked() int { return len(s.channels) + len(s.patterns) + len(s.shards) }

// countFor is the count a (un)subscribe reply reports: channels and
// patterns together, shard channels on their own, as Redis 7.0 does.
func (s *session) countFor(kind commands.SubKind) int {
	if kind == commands.SubShard {
		return len(s.shards)
	}
	return len(s.channels) + len(s.patterns)
}

// setCmd records the running command for CLIENT LIST's cmd field.
func (s *session) setCmd(cmd *commands.Cmd, args [][]byte) {
	name := cmd.Name
	if cmd.Flags&commands.ListedWithSub != 0 && len(args) > 1 {
		name += "|" + strings.ToLower(string(args[1]))
	}
	s.mu.Lock()
	s.cmdName = name
	s.mu.Unlock()
}

func (s *session) getName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

func (s *session) setName(n string) {
	s.mu.Lock()
	s.name = n
	s.mu.Unlock()
}

var _ commands.Conn = (*session)(nil)
