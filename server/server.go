package server

import (
	"fmt"
	"log/slog"
	"maps"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// Server is a running qlessd.
type Server struct {
	cfg     Config
	comb    combiner
	gate    scriptGate // see scriptgate.go
	db      *store.DB
	table   *commands.Table
	loops   []*eventLoop // when cfg.EventLoop: see loop.go
	lns     listeners    // the plain and TLS listening sockets: listeners.go
	waiters *waiters
	pubsub  *pubsub

	divert   func(net.Conn) bool // see divert.go
	readGate func() error        // see readgate.go
	nextLoop atomic.Uint32       // the loop the next connection goes to

	scripts   ScriptEngine // nil: no scripts (busy.go)
	luaLimits scriptLimits // lua-time-limit, lua-max-memory: script_limits.go

	limits requestLimits // what every command read checks: limits.go
	// acl holds the users; whether a password is needed is its NeedAuth.
	acl *commands.ACL

	life lifecycle // closing, in-flight commands, drained: lifecycle.go

	mu       sync.Mutex
	sessions map[int64]*session

	watches *watchRegistry // WATCH: watch.go

	hooks disconnectHooks // OnDisconnect's: disconnect_hooks.go

	// fdFull counts clients refused for want of file descriptors since
	// it last logged them (fdlimit.go); the accepting goroutine's alone.
	fdFull struct {
		refused int
		logged  time.Time
	}

	counts  serverCounts // INFO stats' totals: env.go
	started time.Time

	// crossProtocolLogged is when a cross-protocol request was last logged
	// (Unix seconds): crossprotocol.go.
	crossProtocolLogged atomic.Int64

	obs observation // MONITOR, SLOWLOG, LATENCY: observation.go
}

// New opens the store and builds the server, which serves table's
// commands and asks scripts (nil when there are none) about the scripts
// they run; Start begins serving.
func New(cfg Config, table *commands.Table, scripts ScriptEngine) (*Server, error) {
	if cfg.Databases <= 0 {
		cfg.Databases = 16
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Settings = maps.Clone(cfg.Settings) // CONFIG SET writes some here
	if cfg.Settings == nil {
		cfg.Settings = map[string]string{}
	}
	if err := fitMaxClients(&cfg); err != nil {
		return nil, err
	}
	db, err := store.Open(store.Options{Dir: cfg.Dir, Sync: cfg.AppendFsync, Databases: cfg.Databases, Logger: cfg.Logger, Rewrite: cfg.AOFRewrite})
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		db:       db,
		table:    table,
		scripts:  scripts,
		waiters:  newWaiters(),
		pubsub:   newPubSub(),
		sessions: map[int64]*session{},
		watches:  newWatchRegistry(),
		started:  time.Now(),
	}
	s.luaLimits.init(cfg)
	s.limits.init(&s.cfg)
	s.obs.init()
	s.life.init()
	for name, v := range s.atomicParams() {
		if n, err := strconv.ParseInt(s.cfg.Settings[name], 10, 64); err == nil {
			v.Store(n)
		}
	}
	if err := s.startACL(); err != nil {
		db.Close()
		return nil, err
	}
	db.OnCommit(s.committed)
	s.addDebug()
	s.addObservers()
	return s, nil
}

// Store returns the server's store (commands.Env).
func (s *Server) Store() *store.DB { return s.db }

// CountSubscribers implements commands.Env.
func (s *Server) CountSubscribers(channel string) int64 { return s.pubsub.count(channel) }

// ConnectedClients returns how many client connections are open (INFO).
func (s *Server) ConnectedClients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// BlockedClients returns how many clients wait in a blocking command (INFO).
func (s *Server) BlockedClients() int { return s.waiters.blocked() }

// PubSubCounts returns the active channels and patterns (INFO).
func (s *Server) PubSubCounts() (channels, patterns int) {
	s.pubsub.mu.RLock()
	defer s.pubsub.mu.RUnlock()
	return len(s.pubsub.channels), len(s.pubsub.patterns)
}

// Table returns the command table.
func (s *Server) Table() *commands.Table { return s.table }

// committed runs after each write transaction, outside the store lock.
func (s *Server) committed(touched []store.KeyRef) {
	s.watches.touch(touched)
}

// Start listens and serves in the background. It returns once the port is
// bound, so callers can report the address.
func (s *Server) Start() error {
	if err := s.checkProtected(); err != nil {
		return err
	}
	drained := s.life.starting()
	if s.cfg.EventLoop {
		if err := s.makeLoops(); err != nil {
			s.cfg.Logger.Warn("no event loop here: one goroutine per connection", "err", err)
		}
	}
	if err := s.listenTLS(drained); err != nil {
		s.dropLoops()
		return err
	}
	if s.cfg.Port == 0 && s.cfg.TLSPort != 0 {
		if len(s.loops) > 0 {
			s.runLoops(nil)
		}
		return nil // port 0 with tls-port: TLS only, as Redis
	}
	addr := net.JoinHostPort(s.cfg.Bind, strconv.Itoa(s.cfg.Port))
	inner, err := net.Listen("tcp", addr)
	if err != nil {
		if s.lns.tls != nil {
			s.lns.tls.Listener.Close()
			close(drained)
		}
		s.dropLoops()
		return err
	}
	s.lns.plain = &gatedListener{Listener: inner, drained: drained, retired: make(chan struct{})}
	if len(s.loops) > 0 {
		s.runLoops(nil)
	}
	s.acceptPlain(s.lns.plain)
	return nil
}

// checkProtected refuses, as protected mode intends, to serve beyond the
// loopback interface without a password.
func (s *Server) checkProtected() error {
	if !s.cfg.ProtectedMode || !s.acl.DefaultNoPass() {
		return nil
	}
	host := s.cfg.Bind
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("protected mode: refusing to listen on %q without a password; set --requirepass, or --protected-mode no to accept unauthenticated clients from the network", host)
}

// fromLoopback reports whether nc's client connects over the loopback
// interface.
func fromLoopback(nc net.Conn) bool {
	a, ok := nc.RemoteAddr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// Addr returns the listening address: the plain one, or the TLS one
// when only TLS is served.
func (s *Server) Addr() net.Addr { return s.lns.addr() }

// Done is closed when the server begins shutting down (SHUTDOWN or Close).
func (s *Server) Done() <-chan struct{} { return s.life.shutdown }

// Close stops accepting, lets in-flight commands finish, then syncs and
// closes the store. Blocked clients are released. Every caller waits for the
// same close to finish (SHUTDOWN starts one that main then waits on).
func (s *Server) Close() error {
	return s.life.closeOnce(s.close)
}

func (s *Server) close() error {
	s.life.begin()
	gate := s.lns.gate()
	if gate == nil {
		return s.db.Close()
	}
	s.lns.closeAll()
	abandon := s.life.abandon.Load()
	if !s.life.settle(10*time.Second) && !abandon {
		s.cfg.Logger.Warn("shutdown: commands still running after 10s; stopping without them")
		abandon = true
	}
	close(gate.drained)
	if abandon {
		// A command that does not end (a script past its time limit,
		// which SHUTDOWN NOSAVE is for) may hold the store and an event
		// loop for good: stop what stops, keep what was committed.
		for _, lp := range s.loops {
			go lp.stop()
		}
		select {
		case <-s.life.served:
			s.closeDetached()
		case <-time.After(time.Second):
		}
		return s.db.Abandon()
	}
	for _, lp := range s.loops {
		lp.stop()
	}
	<-s.life.served
	s.closeDetached()
	return s.db.Close()
}

// admit registers a new connection's session, or refuses it while the
// server stops, when maxclients are connected, or, in protected mode
// without a password, when it comes from beyond the loopback interface;
// the client is told why over nc. Protected mode is checked here, on each
// connection, as Redis does: CONFIG SET may have changed it, or the
// password, since the server started.
func (s *Server) admit(sess *session, nc net.Conn) bool {
	if s.life.stopping() {
		return false
	}
	s.mu.Lock()
	refuse := ""
	switch {
	case s.cfg.MaxClients > 0 && len(s.sessions) >= s.cfg.MaxClients:
		refuse = commands.ErrMaxClients
	case s.cfg.ProtectedMode && s.acl.DefaultNoPass() && !fromLoopback(nc):
		refuse = commands.ErrProtectedMode
	}
	if refuse != "" {
		s.mu.Unlock()
		if refuse == commands.ErrMaxClients {
			s.counts.rejected.Add(1)
		}
		nc.Write([]byte("-" + refuse + "\r\n"))
		return false
	}
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	s.counts.conns.Add(1)
	return true
}

// process runs one command line: the checks Redis makes before running a
// command, MULTI queueing, then the command. It reports whether the
// connection is to close once the reply is sent (QUIT).
func (s *Server) process(sess *session, args [][]byte, w replyWriter) (quit bool) {
	owned := sess.owned
	sess.owned = nil
	defer func() {
		// A bug in one command must not stop the server. Part of a reply may
		// already be out, so the connection closes after the error line.
		if r := recover(); r != nil {
			s.cfg.Logger.Error("command panicked; closing the client connection",
				"command", string(args[0]), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			w.WriteError(fmt.Sprintf("ERR internal error running '%s': %v", strings.ToLower(string(args[0])), r))
			quit = true
		}
	}()
	sess.lastCmd.Store(time.Now().UnixMilli())
	s.counts.commands.Add(1)
	w.SetResp3(sess.resp3.Load())
	if sess.replyOff || sess.replySkip {
		sess.replySkip = false
		if !isClientReply(args) {
			w = discard{}
		}
	}
	cmd := s.table.Lookup(args[0])
	if cmd == nil {
		s.reject(sess, nil, args, w, commands.UnknownCommand(string(args[0]), args[1:]))
		return false
	}
	if !cmd.ArityOK(len(args)) {
		s.reject(sess, cmd, args, w, commands.WrongArgs(cmd.Name))
		return false
	}
	if s.authRequired(sess) && cmd.Flags&commands.NoAuth == 0 {
		s.reject(sess, cmd, args, w, commands.ErrNoAuth)
		return false
	}
	if u := sess.user.Load(); !u.Unrestricted() && s.aclDenied(sess, cmd, args, w) {
		return false
	}
	if msg := s.refuseWrite(sess, cmd, w); msg != "" {
		s.table.Rejected(cmd, args, msg)
		return false
	}
	if sess.monitoring.Load() && cmd.Flags&(commands.Write|commands.ReadOnly|commands.MayReplicate) != 0 {
		s.reject(sess, cmd, args, w, commands.ErrMonitorKeyspace)
		return false
	}
	if sess.subscriptions() > 0 && cmd.Flags&commands.SubscribedOK == 0 && !sess.resp3.Load() {
		s.reject(sess, cmd, args, w, commands.Errorf(commands.ErrPubSubContext, cmd.Name))
		return false
	}
	if sess.multi != nil && cmd.Flags&commands.NoMulti != 0 {
		s.reject(sess, cmd, args, w, commands.ErrNotInMulti)
		return false
	}
	var pass gatePass // see scriptgate.go
	defer pass.leave()
	// A command in the event loop's batch holds the store lock already:
	// no script can be running.
	if sess.batch == nil && s.refuseBusy(cmd, args, w, &pass) {
		s.table.Rejected(cmd, args, commands.ErrBusy)
		sess.flagMulti()
		return false
	}
	if sess.multi != nil && cmd.Flags&commands.RunsInMulti == 0 {
		sess.multi.cmds = append(sess.multi.cmds, queued{cmd, args})
		sess.multiLen.Add(1)
		sess.bufs.multi.Add(requestSize(args))
		sess.setCmd(cmd, args) // CLIENT LIST shows the last command queued, as Redis
		w.WriteStatus("QUEUED")
		return false
	}
	sess.setCmd(cmd, args)
	switch {
	case cmd.Flags&commands.ClosesConn != 0:
		w.WriteStatus("OK")
		return true
	case pingSubscribed(sess, cmd, args, w):
		return false
	}
	if sess.batch == nil { // a batch's scripts were announced with it
		defer s.announceScript(sess, cmd, args, &pass)()
	}
	s.execute(sess, cmd, args, w, &pass, owned)
	return false
}

// reject refuses a command before it runs, with msg, and counts the
// refusal (INFO commandstats' rejected_calls, errorstats).
func (s *Server) reject(sess *session, cmd *commands.Cmd, args [][]byte, w replyWriter, msg string) {
	if cmd != nil && cmd.Flags&commands.RunsQueued != 0 {
		// Redis answers a refused EXEC as an aborted transaction, in MULTI
		// or not, and ends the transaction and the watches.
		sess.setMulti(nil)
		sess.unwatchAll()
		msg = commands.Errorf(commands.ErrExecAbortOf, strings.TrimPrefix(msg, "ERR "))
	}
	w.WriteError(msg)
	s.table.Rejected(cmd, args, msg)
	sess.flagMulti()
}

// pingSubscribed answers PING from a RESP2 client in subscribe mode, which
// gets a message-like array instead of +PONG. It reports whether it did.
func pingSubscribed(sess *session, cmd *commands.Cmd, args [][]byte, w resp.Writer) bool {
	if cmd.Flags&commands.SubscribedPong == 0 || sess.resp3.Load() || sess.subscriptions() == 0 || len(args) > 2 {
		return false
	}
	w.WriteArray(2)
	w.WriteBulkString("pong")
	if len(args) > 1 {
		w.WriteBulk(args[1])
	} else {
		w.WriteBulkString("")
	}
	return true
}

// execute runs cmd in the transaction it needs, waits when it blocks, and
// delivers what it published once it has committed. A blocked command's
// last run, after its timeout, takes the store lock outside the gate.
//
// owned are the rooms of args that the connection read (store.Room): only
// this, the command's first and only run from its connection, may hand
// them to the store. A command queued by MULTI, run again after blocking,
// or called by a script gets none, and copies what it keeps.
func (s *Server) execute(sess *session, cmd *commands.Cmd, args [][]byte, w replyWriter, pass *gatePass, owned []store.Room) {
	ctx := &commands.Ctx{Sess: sess, Env: s, Table: s.table, Owned: owned}
	wt := s.runOnce(sess, ctx, cmd, args, w)
	pass.leave() // done with the store lock; a blocked command now waits elsewhere
	if wt == nil {
		return
	}
	var deadline time.Time
	if ctx.Block.Timeout > 0 {
		deadline = time.Now().Add(ctx.Block.Timeout)
	}
	ctx.Block, ctx.Owned = nil, nil
	// Replies to the commands pipelined before this one go out now, as
	// Redis sends them while the client waits.
	sess.flushReplies()
	for {
		reply, res := s.wait(sess, wt, deadline)
		ctx.Retrying, ctx.Waited = true, time.Since(wt.since)
		switch res {
		case waitServed:
			w.WriteRaw(reply)
			owe(w, wt.undelivered)
		case waitRecheck:
			// Something it waits for fell due by the clock: it runs
			// again, and waits on (to the same deadline) if it still
			// finds nothing.
			if wt = s.runOnce(sess, ctx, cmd, args, w); wt != nil {
				ctx.Block = nil
				continue
			}
		case waitTimedOut:
			// The last run writes the timeout reply; it cannot wait again.
			ctx.TimedOut = true
			if again := s.runOnce(sess, ctx, cmd, args, w); again != nil {
				s.waiters.leave(again)
			}
		}
		return
	}
}

// runOnce runs cmd once and returns the waiter it registered when the
// command asked to block. Replies of write commands are held until the
// transaction has committed (and, with appendfsync always, reached the
// disk), so a client never hears OK for a write that failed to persist.
// What the command published is delivered before its reply is written.
func (s *Server) runOnce(sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w replyWriter) *waiter {
	if cmd.Flags&commands.NoTx != 0 {
		ctx.Tx, ctx.W = nil, w
		s.table.Dispatch(ctx, cmd, args)
		s.pubsub.publish(ctx.TakePublished())
		return s.registerAfter(sess, ctx, cmd, args)
	}
	if cmd.Flags&commands.Write == 0 {
		s.runRead(sess, ctx, cmd, args, w)
		s.pubsub.publish(ctx.TakePublished())
		return s.registerAfter(sess, ctx, cmd, args)
	}
	if sess.batch != nil {
		return s.runBatched(sess.batch, sess, ctx, cmd, args, w)
	}
	if cmd.Flags&commands.MayWrite != 0 {
		if refusal := s.db.WritesRefused(); refusal != nil {
			s.runRefusingWrites(sess, ctx, cmd, args, w, refusal)
			return nil
		}
	}
	buf := sess.replyBuf()
	defer buf.release()
	var wt *waiter
	ctx.W = buf
	err := s.update(s.writeBody(sess, ctx, cmd, args, &wt))
	ctx.Tx, ctx.W = nil, nil
	if err != nil {
		if wt != nil && !s.waiters.leave(wt) {
			<-wt.done // served by its own failed transaction: the error is sent below
		}
		msg := commands.Misconf(err)
		w.WriteError(msg)
		s.table.Stats().CountError(msg)
		ctx.Block, ctx.Undelivered = nil, nil
		return nil
	}
	w.WriteRaw(buf.b)
	owe(w, ctx.Undelivered)
	ctx.Undelivered = nil
	return wt
}

// runRead runs a read command. In the event loop's batch its reply goes
// out after the turn's data-file write; alone, it may run twice (DB.View
// reads again when a failed write took back what it read), so it replies
// into a buffer it starts afresh.
func (s *Server) runRead(sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w replyWriter) {
	if b := sess.batch; b != nil {
		ctx.W = w
		tx := b.tx
		tx.Select(sess.DB())
		ctx.Tx = tx
		start := len(sess.lc.out.b)
		s.table.Dispatch(ctx, cmd, args)
		b.noteReply(sess, w, start, false)
		ctx.Tx = nil
		return
	}
	buf := sess.replyBuf()
	defer buf.release()
	ctx.W = buf
	s.db.View(func(tx *store.Tx) error {
		buf.b = buf.b[:0]
		ctx.TakePublished()
		tx.Select(sess.DB())
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, args)
		return nil
	})
	ctx.Tx, ctx.W = nil, w
	if err := s.gateRead(sess); err != nil {
		ctx.TakePublished()
		s.replyFailed(w, err)
		return
	}
	w.WriteRaw(buf.b)
}

// writeBody is a write command's transaction body. A command that asks to
// block is registered in *wt before the transaction lets go of the store,
// so no write can slip in between the look and the wait.
func (s *Server) writeBody(sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, wt **waiter) func(tx *store.Tx) []commands.Message {
	return func(tx *store.Tx) []commands.Message {
		tx.Select(sess.DB())
		ctx.Tx = tx
		ctx.Undelivered = nil // from a run of the body that was taken back
		s.table.Dispatch(ctx, cmd, args)
		if ctx.Block != nil {
			*wt = newWaiter(sess, cmd, args, ctx.Block, ctx.Waited)
			s.waiters.add(*wt)
		}
		return ctx.TakePublished()
	}
}

// registerAfter registers a command that asked to block outside a write
// transaction. Only keyless waits (WAIT) do: a wait on keys must come from a
// write command, registered inside its transaction (see runOnce).
func (s *Server) registerAfter(sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte) *waiter {
	if ctx.Block == nil {
		return nil
	}
	wt := newWaiter(sess, cmd, args, ctx.Block, ctx.Waited)
	s.waiters.add(wt)
	return wt
}

type waitResult int

const (
	waitServed   waitResult = iota
	waitTimedOut            // the deadline passed or the server is stopping
	waitGone                // the client closed its connection
	waitRecheck             // its recheck time came (BlockRequest.Recheck)
)

// wait blocks until a transaction serves wt, the deadline passes, the
// client leaves or the server stops, and returns the reply when served.
func (s *Server) wait(sess *session, wt *waiter, deadline time.Time) ([]byte, waitResult) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var recheck *time.Timer
	var recheckC <-chan time.Time
	arm := func() {
		at := wt.recheckAt.Load()
		if at == 0 {
			return
		}
		if recheck == nil {
			recheck = time.NewTimer(time.Until(time.Unix(0, at)))
			recheckC = recheck.C
		} else {
			recheck.Reset(time.Until(time.Unix(0, at)))
		}
	}
	arm()
	defer func() {
		if recheck != nil {
			recheck.Stop()
		}
	}()
	for {
		res := waitTimedOut
		select {
		case reply := <-wt.done:
			return reply, waitServed
		case <-wt.nudge:
			arm()
			continue
		case <-recheckC:
			res = waitRecheck
		case <-timeout:
		case <-s.life.shutdown:
		case <-tick.C:
			if !connClosed(sess.netConn) {
				continue
			}
			res = waitGone
		}
		if s.waiters.leave(wt) {
			return nil, res
		}
		// Served just before it could leave: the reply is its own.
		return <-wt.done, waitServed
	}
}
