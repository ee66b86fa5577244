package server

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
	"github.com/tidwall/redcon"
)

// eventLoop serves client connections from one goroutine, as Redis's one
// thread does: it waits for the sockets with data, reads every command they
// sent, runs the commands of all of them in one store transaction, waits
// once for the data file (and, with appendfsync always, one fsync), then
// writes every reply. A goroutine per connection instead wakes one
// goroutine per command and another to hand each reply back, and on a
// machine with few cores those wake-ups queue behind each other: the tail
// latency Redis does not have.
//
// A connection leaves the loop for a goroutine of its own (graduates) on the
// first command that may wait (blocking pops, WAIT), run a script that can
// run past lua-time-limit (EVAL and friends, whose clients must get BUSY
// from others meanwhile), subscribe, or start MULTI; it stays there.
type eventLoop struct {
	s    *Server
	p    *poller
	done chan struct{}

	conns  map[uint32]*loopConn
	nextID uint32
	ready  []readyEvent
	turn   []*loopConn // connections with something to do this turn
	batch  loopBatch
	refuse bool // the store refused a batch this turn: run the rest alone

	mu       sync.Mutex // guards what other goroutines hand the loop
	incoming []*loopConn
	killed   []*loopConn
	stopping bool
}

// loopBatch is the transaction one turn's commands run in, and the writes
// to settle once it is in the data file.
type loopBatch struct {
	tx    *store.Tx
	reqs  []*writeReq
	spans []replySpan // where the writes' replies are, to redo if the batch fails
}

// replySpan is one write's reply in its connection's output.
type replySpan struct {
	lc         *loopConn
	start, end int
}

// loopConn is one connection of the loop. It is the session's net.Conn: the
// loop owns its socket until it graduates; from then on inner is a net.Conn
// over the same socket and every call goes there.
type loopConn struct {
	lp     *eventLoop
	id     uint32
	fd     int
	sess   *session
	in     []byte    // input; commands' arguments point into it until the turn ends
	parsed int       // how much of in the commands read so far took
	cmds   []loopCmd // read, not run yet
	argBuf [][]byte  // the arguments of cmds
	out    bufWriter // replies, sent from sent on

	// Once graduated: redcon's reader, over what the loop read but did not
	// run (pending) and then the socket.
	rd      *redcon.Reader
	pending []byte
	gcmds   []redcon.Command
	sent    int
	local   net.Addr
	remote  net.Addr

	inTurn   bool
	wantOut  bool // waiting for the socket to take more output
	closing  bool // close once the output is out (QUIT, protocol error)
	dead     bool // close now
	graduate bool
	gone     bool

	mu     sync.Mutex
	inner  net.Conn
	killed bool
	fdNum  int // for CLIENT LIST, under mu
}

func newEventLoop(s *Server) (*eventLoop, error) {
	p, err := newPoller()
	if err != nil {
		return nil, err
	}
	return &eventLoop{s: s, p: p, done: make(chan struct{}), conns: map[uint32]*loopConn{}}, nil
}

// startLoops starts the event loops and the goroutine that accepts for
// them, each new connection going to the next loop in turn.
func (s *Server) startLoops(ln net.Listener) error {
	n := max(s.cfg.EventLoops, 1)
	for range n {
		lp, err := newEventLoop(s)
		if err != nil {
			for _, lp := range s.loops {
				lp.p.close()
			}
			s.loops = nil
			return err
		}
		s.loops = append(s.loops, lp)
	}
	for _, lp := range s.loops {
		go lp.run()
	}
	go s.acceptLoop(ln)
	go func() {
		for _, lp := range s.loops {
			<-lp.done
		}
		s.served <- nil
	}()
	return nil
}

// acceptLoop takes connections from ln and hands their sockets to the loops.
func (s *Server) acceptLoop(ln net.Listener) {
	for i := 0; ; i++ {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.cfg.Logger.Warn("accept failed", "err", err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		s.loops[i%len(s.loops)].adopt(c)
	}
}

func (lp *eventLoop) adopt(c net.Conn) {
	fd, err := takeFD(c)
	if err != nil {
		lp.s.cfg.Logger.Warn("event loop: cannot take a connection", "err", err)
		c.Close()
		return
	}
	lc := &loopConn{lp: lp, fd: fd, fdNum: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	sess := newSession(lp.s, nil, lc, c.RemoteAddr().String())
	sess.lc = lc
	lc.sess = sess
	if !lp.s.admit(sess, c) {
		c.Close()
		closeFD(fd)
		return
	}
	c.Close() // the loop's duplicate keeps the socket open
	lp.mu.Lock()
	if lp.stopping {
		lp.mu.Unlock()
		closeFD(fd)
		go lp.s.drop(sess)
		return
	}
	lp.incoming = append(lp.incoming, lc)
	lp.mu.Unlock()
	lp.p.wake()
}

// run is the loop. It returns once stop has been called.
func (lp *eventLoop) run() {
	defer close(lp.done)
	lastSweep := time.Now()
	for {
		timeout := -1
		if lp.s.cfg.Timeout > 0 {
			timeout = 1000
		}
		var err error
		lp.ready, err = lp.p.wait(lp.ready[:0], timeout)
		if err != nil {
			lp.s.cfg.Logger.Error("event loop: wait failed", "err", err)
			time.Sleep(time.Millisecond)
		}
		if lp.takeHandedOver() {
			lp.closeAll()
			return
		}
		for _, ev := range lp.ready {
			lc := lp.conns[ev.id]
			if ev.id == wakeID || lc == nil {
				continue
			}
			lp.join(lc)
			if ev.writable {
				lp.flush(lc)
			}
			if ev.readable {
				lp.read(lc)
			}
		}
		lp.runCommands()
		lp.finishTurn()
		if lp.s.cfg.Timeout > 0 && time.Since(lastSweep) >= time.Second {
			lastSweep = time.Now()
			lp.closeIdle()
		}
	}
}

func (lp *eventLoop) join(lc *loopConn) {
	if !lc.inTurn {
		lc.inTurn = true
		lp.turn = append(lp.turn, lc)
	}
}

// takeHandedOver registers new connections and closes killed ones. It
// reports whether the loop is to stop.
func (lp *eventLoop) takeHandedOver() bool {
	lp.mu.Lock()
	incoming, killed, stopping := lp.incoming, lp.killed, lp.stopping
	lp.incoming, lp.killed = nil, nil
	lp.mu.Unlock()
	for _, lc := range incoming {
		lp.nextID++
		if lp.nextID == wakeID {
			lp.nextID++
		}
		lc.id = lp.nextID
		if err := lp.p.add(lc.fd, lc.id); err != nil {
			lp.s.cfg.Logger.Error("event loop: cannot watch a connection", "err", err)
			lp.closeConn(lc)
			continue
		}
		lp.conns[lc.id] = lc
	}
	for _, lc := range killed {
		if !lc.gone && lc.inner == nil {
			lp.closeConn(lc)
		}
	}
	return stopping
}

// read takes what the connection has sent so far and the commands in it.
func (lp *eventLoop) read(lc *loopConn) {
	if lc.closing || lc.dead {
		return
	}
	for {
		if cap(lc.in)-len(lc.in) < minRead {
			grown := make([]byte, len(lc.in), max(2*cap(lc.in), len(lc.in)+minRead))
			copy(grown, lc.in)
			lc.in = grown
		}
		n, err := sockRead(lc.fd, lc.in[len(lc.in):cap(lc.in)])
		if n > 0 {
			lc.in = lc.in[:len(lc.in)+n]
		}
		if err != nil && !wouldBlock(err) || err == nil && n == 0 {
			lc.closing = true // end of stream or a reset: run what came before it
		}
		// Stop once the socket gave less than room was left: it is empty
		// now, and asking again would only say so.
		if err != nil || n == 0 || len(lc.in) < cap(lc.in) {
			break
		}
	}
	for lc.parsed < len(lc.in) {
		start, before := lc.parsed, len(lc.argBuf)
		n, args, err := parseCommand(lc.in[start:], lc.argBuf)
		lc.argBuf = args
		if err == errIncomplete {
			lc.argBuf = lc.argBuf[:before]
			break
		}
		if err != nil {
			lc.cmds = append(lc.cmds, loopCmd{start: start, fail: []byte("-ERR " + err.Error() + "\r\n")})
			lc.parsed = len(lc.in)
			lc.closing = true
			break
		}
		lc.parsed += n
		if len(args) > before {
			lc.cmds = append(lc.cmds, loopCmd{args: args[before:len(args):len(args)], start: start})
		}
	}
}

// minRead is the least room a read is given.
const minRead = 16 << 10

// endTurn drops the input the turn's commands took.
func (lc *loopConn) endTurn() {
	rest := copy(lc.in, lc.in[lc.parsed:])
	lc.in, lc.parsed = lc.in[:rest], 0
	if rest == 0 && cap(lc.in) > 4*minRead {
		lc.in = nil
	}
	clear(lc.argBuf)
	lc.argBuf = lc.argBuf[:0]
	clear(lc.cmds)
	lc.cmds = lc.cmds[:0]
}

// How a command runs in the loop.
type loopRun int

const (
	runBatched   loopRun = iota // in the turn's store transaction
	runAlone                    // by itself, as a connection goroutine would run it
	runElsewhere                // the connection graduates first
)

// graduateOn are commands, besides blocking ones and scripts, that take a
// connection out of the loop: they wait, or change how it is served.
var graduateOn = map[string]bool{
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "multi": true,
	"wait": true, "shutdown": true, "debug": true, "monitor": true,
}

// aloneOnly are commands that read the store outside their transaction.
var aloneOnly = map[string]bool{"info": true, "lastsave": true, "memory": true}

func (lp *eventLoop) kind(rc loopCmd, busy bool) loopRun {
	if rc.fail != nil {
		return runAlone // a protocol error's reply
	}
	cmd := lp.s.table.Lookup(rc.args[0])
	switch {
	case cmd == nil:
		return runAlone
	case cmd.Flags&commands.Blocking != 0 || commands.RunsScript(cmd) || graduateOn[cmd.Name]:
		return runElsewhere
	case busy || lp.refuse || cmd.Flags&commands.NoTx != 0 || cmd.Flags&(commands.Write|commands.ReadOnly) == 0 || aloneOnly[cmd.Name]:
		return runAlone
	}
	return runBatched
}

// runnable reports whether lc has a command to run now.
func (lc *loopConn) runnable() bool {
	return len(lc.cmds) > 0 && !lc.graduate && !lc.dead
}

// runCommands runs this turn's commands: the leading commands of every
// connection that can share a transaction run in one, then those that
// must run alone, and so on until every connection is done or graduates.
// A connection's commands always run in the order sent.
func (lp *eventLoop) runCommands() {
	lp.refuse = false
	for {
		busy := lp.s.scriptRunning()
		batched := false
		for _, lc := range lp.turn {
			if lc.runnable() && lp.kind(lc.cmds[0], busy) == runBatched {
				batched = true
				break
			}
		}
		if batched {
			lp.runBatch()
		}
		more := false
		for _, lc := range lp.turn {
			for lc.runnable() {
				k := lp.kind(lc.cmds[0], busy)
				if k == runBatched {
					more = true
					break
				}
				if k == runElsewhere {
					lc.graduate = true
					break
				}
				lp.runOne(lc)
			}
		}
		if !more {
			return
		}
	}
}

// runBatch runs every connection's leading batchable commands in one
// transaction, waits until it is in the data file, then settles it.
func (lp *eventLoop) runBatch() {
	s := lp.s
	b := &lp.batch
	ran := false
	c, err := s.db.UpdateAsync(func(tx *store.Tx) error {
		ran = true
		b.tx = tx
		for _, lc := range lp.turn {
			for lc.runnable() && lp.kind(lc.cmds[0], false) == runBatched {
				lc.sess.batch = b
				lp.runOne(lc)
				lc.sess.batch = nil
			}
		}
		b.tx = nil
		return nil
	})
	if !ran {
		// Refused before it ran (the data file cannot be written): each
		// command then runs alone and replies with the store's error.
		lp.refuse = true
		return
	}
	if err == nil {
		err = c.Wait()
	}
	s.settle(b.reqs, err)
	if err != nil {
		s.cfg.Logger.Error("write failed", "err", err)
		b.replaceReplies([]byte("-MISCONF Errors writing to the data file: " + err.Error() + "\r\n"))
	}
	for i, r := range b.reqs {
		*r = writeReq{wake: r.wake}
		writeReqs.Put(r)
		b.reqs[i] = nil
	}
	clear(b.spans)
	b.reqs, b.spans = b.reqs[:0], b.spans[:0]
}

// replaceReplies puts msg in place of every write's reply of a batch that
// did not reach the data file: no client hears OK for such a write.
func (b *loopBatch) replaceReplies(msg []byte) {
	for i := 0; i < len(b.spans); {
		lc := b.spans[i].lc
		var out []byte
		from := 0
		for ; i < len(b.spans) && b.spans[i].lc == lc; i++ {
			out = append(out, lc.out.b[from:b.spans[i].start]...)
			out = append(out, msg...)
			from = b.spans[i].end
		}
		lc.out.b = append(out, lc.out.b[from:]...)
	}
}

// runOne runs lc's next command.
func (lp *eventLoop) runOne(lc *loopConn) {
	rc := lc.cmds[0]
	lc.cmds = lc.cmds[1:]
	if rc.fail != nil {
		lc.out.WriteRaw(rc.fail)
		lc.cmds = nil
		return
	}
	s := lp.s
	if s.closing.Load() {
		lc.dead = true
		return
	}
	s.inflight.Add(1)
	quit := s.process(lc.sess, rc.args, &lc.out)
	s.inflight.Done()
	if quit || lc.sess.closeAfterReply {
		lc.closing = true
		lc.cmds = nil
	}
}

// runBatched is runOnce for a command in the event loop's transaction: the
// loop waits for the data file once the turn's commands have run, and only
// then sends their replies.
func (s *Server) runBatched(b *loopBatch, sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w replyWriter) *waiter {
	tx := b.tx
	tx.Select(sess.DB())
	ctx.W = w
	if cmd.Flags&commands.Write == 0 {
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, args)
		ctx.Tx = nil
		s.pubsub.publish(ctx.TakePublished())
		return s.registerAfter(sess, ctx, cmd, args)
	}
	var wt *waiter
	r := writeReqs.Get().(*writeReq)
	r.fn = func(tx *store.Tx) []commands.Message {
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, args)
		if ctx.Block != nil {
			wt = newWaiter(sess, cmd, args, ctx.Block)
			s.waiters.add(wt)
		}
		return ctx.TakePublished()
	}
	start := len(sess.lc.out.b)
	s.runWrite(tx, r)
	b.reqs = append(b.reqs, r)
	if w == replyWriter(&sess.lc.out) {
		b.spans = append(b.spans, replySpan{sess.lc, start, len(sess.lc.out.b)})
	}
	ctx.Tx, ctx.W = nil, nil
	if p := r.panic; p != nil {
		r.panic = nil
		panic(p) // for process to report, on this connection
	}
	return wt
}

// scriptRunning reports whether a script command runs or waits to run.
func (s *Server) scriptRunning() bool {
	if s.busyCheck == nil {
		return false
	}
	done, _ := s.busyCheck()
	return done != nil
}

// finishTurn sends the turn's replies, then closes or graduates the
// connections that are to go.
func (lp *eventLoop) finishTurn() {
	for _, lc := range lp.turn {
		lc.inTurn = false
		if lc.gone {
			continue
		}
		if !lc.dead {
			lp.flush(lc)
		}
		switch {
		case lc.dead:
			lp.closeConn(lc)
		case lc.graduate:
			// Even when the input has ended: what came before the end
			// still runs, there.
			lp.graduate(lc)
		case lc.closing && lc.sent == len(lc.out.b):
			lp.closeConn(lc)
		default:
			lc.endTurn()
		}
	}
	clear(lp.turn)
	lp.turn = lp.turn[:0]
}

// flush writes what the socket takes now and asks to hear when it takes
// more.
func (lp *eventLoop) flush(lc *loopConn) {
	for lc.sent < len(lc.out.b) {
		n, err := sockWrite(lc.fd, lc.out.b[lc.sent:])
		if n > 0 {
			lc.sent += n
		}
		if err != nil {
			if wouldBlock(err) {
				if !lc.wantOut {
					lc.wantOut = lp.p.writable(lc.fd, lc.id, true) == nil
				}
				return
			}
			lc.dead = true
			return
		}
	}
	lc.sent = 0
	if cap(lc.out.b) > 64<<10 {
		lc.out.b = nil
	} else {
		lc.out.b = lc.out.b[:0]
	}
	if lc.wantOut {
		lp.p.writable(lc.fd, lc.id, false)
		lc.wantOut = false
	}
}

func (lp *eventLoop) closeConn(lc *loopConn) {
	if lc.gone {
		return
	}
	lc.gone = true
	lp.p.remove(lc.fd)
	delete(lp.conns, lc.id)
	lc.mu.Lock()
	closeFD(lc.fd)
	lc.fd, lc.fdNum = -1, -1
	lc.mu.Unlock()
	go lp.s.drop(lc.sess)
}

// graduate hands lc to a goroutine of its own, which first sends what the
// socket did not take yet, then runs the commands read but not run.
func (lp *eventLoop) graduate(lc *loopConn) {
	lc.pending = lc.in[lc.cmds[0].start:]
	lc.cmds, lc.argBuf = nil, nil
	lc.rd = redcon.NewReader(connSource{lc})
	lc.gone = true
	lp.p.remove(lc.fd)
	delete(lp.conns, lc.id)
	f := os.NewFile(uintptr(lc.fd), "")
	nc, err := net.FileConn(f)
	lc.mu.Lock()
	f.Close()
	lc.fd = -1
	killed := lc.killed
	if err == nil {
		lc.inner = nc
		lc.fdNum = fdOf(nc)
	}
	lc.mu.Unlock()
	if err != nil || killed {
		if err != nil {
			lp.s.cfg.Logger.Error("event loop: cannot hand a connection over", "err", err)
		} else {
			nc.Close()
		}
		go lp.s.drop(lc.sess)
		return
	}
	go lp.s.serveGraduated(lc)
}

// closeIdle closes connections idle past the timeout, as Redis does.
func (lp *eventLoop) closeIdle() {
	limit := time.Now().Add(-lp.s.cfg.Timeout).UnixMilli()
	for _, lc := range lp.conns {
		if lc.sess.lastCmd.Load() < limit {
			lp.closeConn(lc)
		}
	}
}

func (lp *eventLoop) closeAll() {
	for _, lc := range lp.conns {
		lp.closeConn(lc)
	}
	lp.mu.Lock()
	lp.p.close()
	lp.mu.Unlock()
}

// stop ends the loop and waits for it: its connections close.
func (lp *eventLoop) stop() {
	lp.mu.Lock()
	already := lp.stopping
	lp.stopping = true
	lp.mu.Unlock()
	if !already {
		lp.p.wake()
	}
	<-lp.done
}

// kill asks the loop to close lc (CLIENT KILL from another connection).
func (lp *eventLoop) kill(lc *loopConn) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.stopping {
		return
	}
	lp.killed = append(lp.killed, lc)
	lp.p.wake()
}

// serveGraduated serves a connection that left the loop, as redcon serves
// one: read a pipeline, run it, write the replies.
func (s *Server) serveGraduated(lc *loopConn) {
	sess := lc.sess
	for {
		if sess.out != nil && !sess.detached {
			// Subscribed: from now on its outbox writes, as after redcon's
			// detach.
			lc.flushGraduated()
			sess.dc = lc
			sess.detached = true
			sess.out.release(nil)
			go sess.out.run(lc)
			s.serveDetached(sess)
			return
		}
		if len(lc.gcmds) == 0 {
			if !lc.flushGraduated() {
				break
			}
			if s.cfg.Timeout > 0 {
				lc.inner.SetReadDeadline(time.Now().Add(s.cfg.Timeout))
			}
			cmds, err := lc.rd.ReadCommands()
			if err != nil {
				if strings.HasPrefix(err.Error(), "Protocol error") {
					lc.out.WriteError("ERR " + err.Error())
					lc.flushGraduated()
				}
				break
			}
			lc.gcmds = cmds
			continue
		}
		rc := lc.gcmds[0]
		lc.gcmds = lc.gcmds[1:]
		if s.closing.Load() {
			break
		}
		s.inflight.Add(1)
		quit := s.process(sess, rc.Args, &lc.out)
		s.inflight.Done()
		if quit || sess.closeAfterReply {
			lc.flushGraduated()
			break
		}
	}
	lc.inner.Close()
	s.drop(sess)
}

// flushGraduated writes the pending replies of a graduated connection. It
// reports false when the connection failed.
func (lc *loopConn) flushGraduated() bool {
	if lc.inner == nil || lc.sent == len(lc.out.b) {
		return true
	}
	_, err := lc.inner.Write(lc.out.b[lc.sent:])
	lc.sent = 0
	lc.out.b = lc.out.b[:0]
	return err == nil
}

// ReadCommand serves serveDetached: the commands read but not run first.
func (lc *loopConn) ReadCommand() (redcon.Command, error) {
	for len(lc.gcmds) == 0 {
		cmds, err := lc.rd.ReadCommands()
		if err != nil {
			return redcon.Command{}, err
		}
		lc.gcmds = cmds
	}
	rc := lc.gcmds[0]
	lc.gcmds = lc.gcmds[1:]
	return rc, nil
}

// connSource is what a graduated connection's reader reads: the input the
// loop had not run, then the socket.
type connSource struct{ lc *loopConn }

func (c connSource) Read(p []byte) (int, error) {
	if lc := c.lc; len(lc.pending) > 0 {
		n := copy(p, lc.pending)
		lc.pending = lc.pending[n:]
		return n, nil
	}
	return c.lc.inner.Read(p)
}

// net.Conn, for the session: before graduation only Close and the addresses
// mean anything, and Close asks the loop.

func (lc *loopConn) Read(p []byte) (int, error) {
	if c := lc.graduated(); c != nil {
		return c.Read(p)
	}
	return 0, errServedByLoop
}

func (lc *loopConn) Write(p []byte) (int, error) {
	if c := lc.graduated(); c != nil {
		return c.Write(p)
	}
	return 0, errServedByLoop
}

func (lc *loopConn) Close() error {
	lc.mu.Lock()
	c := lc.inner
	if c == nil {
		lc.killed = true
	}
	lc.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	lc.lp.kill(lc)
	return nil
}

func (lc *loopConn) graduated() net.Conn {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.inner
}

func (lc *loopConn) LocalAddr() net.Addr  { return lc.local }
func (lc *loopConn) RemoteAddr() net.Addr { return lc.remote }

func (lc *loopConn) SetDeadline(t time.Time) error {
	if c := lc.graduated(); c != nil {
		return c.SetDeadline(t)
	}
	return nil
}

func (lc *loopConn) SetReadDeadline(t time.Time) error {
	if c := lc.graduated(); c != nil {
		return c.SetReadDeadline(t)
	}
	return nil
}

func (lc *loopConn) SetWriteDeadline(t time.Time) error {
	if c := lc.graduated(); c != nil {
		return c.SetWriteDeadline(t)
	}
	return nil
}

// SyscallConn gives the socket, for CLIENT LIST and for liveness checks
// of blocked clients (which have graduated).
func (lc *loopConn) SyscallConn() (syscall.RawConn, error) {
	if c := lc.graduated(); c != nil {
		if sc, ok := c.(syscall.Conn); ok {
			return sc.SyscallConn()
		}
		return nil, errors.New("no socket")
	}
	return loopRaw{lc}, nil
}

// loopRaw lends the loop's descriptor to Control only: the loop alone reads
// and writes it.
type loopRaw struct{ lc *loopConn }

func (r loopRaw) Control(f func(fd uintptr)) error {
	r.lc.mu.Lock()
	defer r.lc.mu.Unlock()
	if r.lc.fdNum < 0 {
		return net.ErrClosed
	}
	f(uintptr(r.lc.fdNum))
	return nil
}

func (loopRaw) Read(func(fd uintptr) bool) error  { return errServedByLoop }
func (loopRaw) Write(func(fd uintptr) bool) error { return errServedByLoop }

var errServedByLoop = errors.New("connection served by the event loop")
