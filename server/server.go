package server

import (
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
	"github.com/tidwall/redcon"
)

// Server is a running qlessd.
type Server struct {
	cfg     Config
	db      *store.DB
	table   *commands.Table
	rs      *redcon.Server
	ln      *gatedListener
	waiters *waiters
	pubsub  *pubsub

	busyCheck BusyFunc      // see busy.go
	announce  func() func() // see busy.go

	closing  atomic.Bool
	shutdown chan struct{} // closed when the server starts to stop
	inflight sync.WaitGroup
	served   chan error

	mu       sync.Mutex
	sessions map[int64]*session

	statConns    atomic.Int64
	statCommands atomic.Int64
	started      time.Time
}

// New opens the store and builds the server; Start begins serving.
func New(cfg Config, table *commands.Table) (*Server, error) {
	if cfg.Databases <= 0 {
		cfg.Databases = 16
	}
	db, err := store.Open(store.Options{Dir: cfg.Dir, Sync: cfg.AppendFsync, Databases: cfg.Databases, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		db:       db,
		table:    table,
		waiters:  newWaiters(),
		pubsub:   newPubSub(),
		shutdown: make(chan struct{}),
		sessions: map[int64]*session{},
		started:  time.Now(),
	}
	db.OnCommit(s.committed)
	return s, nil
}

// Store returns the server's store (commands.Env).
func (s *Server) Store() *store.DB { return s.db }

// CountSubscribers implements commands.Env.
func (s *Server) CountSubscribers(channel string) int64 { return s.pubsub.count(channel) }

// Table returns the command table.
func (s *Server) Table() *commands.Table { return s.table }

// committed runs after each write transaction, outside the store lock.
func (s *Server) committed(touched []store.KeyRef) {
	s.waiters.signal(touched)
}

// Start listens and serves in the background. It returns once the port is
// bound, so callers can report the address.
func (s *Server) Start() error {
	addr := net.JoinHostPort(s.cfg.Bind, strconv.Itoa(s.cfg.Port))
	inner, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = &gatedListener{Listener: inner, drained: make(chan struct{})}
	s.rs = redcon.NewServerNetwork("tcp", addr, s.handle, s.accept, s.closed)
	if s.cfg.Timeout > 0 {
		s.rs.SetIdleClose(s.cfg.Timeout)
	}
	s.served = make(chan error, 1)
	go func() { s.served <- s.rs.Serve(s.ln) }()
	return nil
}

// Addr returns the listening address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Done is closed when the server begins shutting down (SHUTDOWN or Close).
func (s *Server) Done() <-chan struct{} { return s.shutdown }

// Close stops accepting, lets in-flight commands finish, then syncs and
// closes the store. Blocked clients are released.
func (s *Server) Close() error {
	if !s.closing.CompareAndSwap(false, true) {
		return nil
	}
	close(s.shutdown)
	if s.ln == nil {
		return s.db.Close()
	}
	s.ln.Listener.Close()
	waited := make(chan struct{})
	go func() { s.inflight.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		s.cfg.Logger.Warn("shutdown: commands still running after 10s; closing anyway")
	}
	close(s.ln.drained)
	<-s.served
	return s.db.Close()
}

func (s *Server) accept(c redcon.Conn) bool {
	if s.closing.Load() {
		return false
	}
	sess := newSession(c)
	c.SetContext(sess)
	s.mu.Lock()
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	s.statConns.Add(1)
	return true
}

func (s *Server) closed(c redcon.Conn, err error) {
	sess, _ := c.Context().(*session)
	if sess == nil {
		return
	}
	s.mu.Lock()
	delete(s.sessions, sess.id)
	s.mu.Unlock()
}

// handle runs one command from a connection.
func (s *Server) handle(c redcon.Conn, rc redcon.Command) {
	sess, _ := c.Context().(*session)
	if sess == nil || len(rc.Args) == 0 {
		return
	}
	if s.closing.Load() {
		c.Close()
		return
	}
	s.inflight.Add(1)
	defer s.inflight.Done()
	sess.lastCmd.Store(time.Now().UnixMilli())
	s.statCommands.Add(1)
	args := rc.Args
	w := connWriter{c}
	cmd := s.table.Lookup(args[0])
	if cmd == nil {
		w.WriteError(commands.UnknownCommand(string(args[0]), args[1:]))
		return
	}
	if cmd.Name == "quit" {
		w.WriteStatus("OK")
		c.Close()
		return
	}
	if s.refuseBusy(cmd, args, w) {
		return
	}
	defer s.announceScript(cmd)()
	s.execute(sess, cmd, args, w)
}

// execute runs cmd in the transaction it needs, waits when it blocks, and
// delivers what it published once it has committed.
func (s *Server) execute(sess *session, cmd *commands.Cmd, args [][]byte, w connWriter) {
	ctx := &commands.Ctx{Sess: sess, Env: s, Table: s.table}
	var wt *waiter
	var deadline time.Time
	defer func() {
		if wt != nil {
			s.waiters.remove(wt)
		}
	}()
	for {
		s.runOnce(ctx, cmd, args, w)
		if msgs := ctx.TakePublished(); len(msgs) > 0 {
			s.pubsub.deliver(msgs)
		}
		if ctx.Block == nil {
			return
		}
		req := ctx.Block
		ctx.Block = nil
		if wt == nil {
			// Register, then look once more: a write that landed between
			// the first attempt and registering would otherwise be missed.
			wt = &waiter{wake: make(chan struct{}, 1)}
			for _, k := range req.Keys {
				wt.keys = append(wt.keys, store.KeyRef{DB: req.DB, Key: k})
			}
			s.waiters.add(wt)
			if req.Timeout > 0 {
				deadline = time.Now().Add(req.Timeout)
			}
			continue
		}
		s.waiters.setActive(wt, false)
		if !s.wait(sess, wt, deadline) {
			ctx.TimedOut = true
		}
		s.waiters.setActive(wt, true)
	}
}

// runOnce runs cmd once. Replies of write commands are held until the
// transaction has committed (and, with appendfsync always, reached the disk),
// so a client never hears OK for a write that failed to persist.
func (s *Server) runOnce(ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w connWriter) {
	if cmd.Flags&commands.NoTx != 0 {
		ctx.Tx, ctx.W = nil, w
		s.table.Dispatch(ctx, cmd, args)
		return
	}
	if cmd.Flags&commands.Write == 0 {
		ctx.W = w
		s.db.View(func(tx *store.Tx) error {
			tx.Select(ctx.Sess.DB())
			ctx.Tx = tx
			s.table.Dispatch(ctx, cmd, args)
			return nil
		})
		ctx.Tx = nil
		return
	}
	var buf bufWriter
	ctx.W = &buf
	err := s.db.Update(func(tx *store.Tx) error {
		tx.Select(ctx.Sess.DB())
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, args)
		return nil
	})
	ctx.Tx = nil
	if err != nil {
		s.cfg.Logger.Error("write failed", "err", err)
		w.WriteError("MISCONF Errors writing to the data file: " + err.Error())
		ctx.TakePublished()
		ctx.Block = nil
		return
	}
	if msgs := ctx.TakePublished(); len(msgs) > 0 {
		s.pubsub.deliver(msgs)
	}
	w.c.WriteRaw(buf.b)
}

// wait blocks until wt is woken (true), or the deadline passes, the client
// leaves or the server stops (false).
func (s *Server) wait(sess *session, wt *waiter, deadline time.Time) bool {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		d := time.Until(deadline)
		if d <= 0 {
			return false
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-wt.wake:
			return true
		case <-timeout:
		case <-s.shutdown:
		case <-tick.C:
			if !connClosed(sess.conn.NetConn()) {
				continue
			}
		}
		// Leaving: a wake-up that raced with the exit goes to the next in line.
		select {
		case <-wt.wake:
			s.waiters.passOn(wt)
		default:
		}
		return false
	}
}

// gatedListener stops the kernel accepting on Close but holds redcon's
// accept loop until drained is closed, because redcon closes every open
// connection as soon as its loop ends and in-flight commands must finish first.
type gatedListener struct {
	net.Listener
	drained chan struct{}
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && errors.Is(err, net.ErrClosed) {
		<-l.drained
	}
	return c, err
}
