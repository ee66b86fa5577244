package server

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

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
	req    reqParser // reads the command after them
	// intoBig: the last room given was the long argument's own buffer
	intoBig bool
	bigIn   int // bytes of the long arguments of the turn's commands
	// reparse: a command was left unread until those before it have run
	// (they may authenticate the client)
	reparse bool
	cmds    []loopCmd // read, not run yet
	argBuf  [][]byte  // the arguments of cmds
	out     bufWriter // replies, sent from sent on
	sent    int
	local   net.Addr
	remote  net.Addr

	inTurn   bool
	watching uint8 // what the poller watches for: watchIn, watchOut
	closing  bool  // close once the output is out (QUIT, protocol error)
	dead     bool  // close now
	graduate bool
	gone     bool
	toRead   bool // among the turn's reads

	// tls is a TLS client's transport (loop_tls.go), nil for plain ones;
	// tlsMore: it may hold input the poller cannot see
	tls     *tlsPipe
	tlsMore bool

	// fd is the loop's to use and change; it changes under mu, so that
	// CLIENT LIST can read it from elsewhere.
	mu     sync.Mutex
	inner  net.Conn
	killed bool
}

// graduate hands lc to a goroutine of its own, which first sends what the
// socket did not take yet, then runs the commands read but not run, and
// reads on from there with the loop's parser: a long argument's bytes are
// in its own buffer, not in the input, so what was read is not read again.
func (lp *eventLoop) graduate(lc *loopConn) {
	oc := &ownConn{sess: lc.sess, in: lc.in[lc.parsed:], req: lc.req, out: bufWriter{b: lc.out.b[lc.sent:]}}
	for _, rc := range lc.cmds {
		err := rc.err
		if rc.attack {
			err = errCrossProtocol
		}
		oc.queued = append(oc.queued, queuedCmd{args: keepArgs(rc.args), err: err})
	}
	lc.in, lc.cmds, lc.argBuf, lc.out.b, lc.req = nil, nil, nil, nil, reqParser{}
	lc.gone = true
	lp.p.remove(lc.fd)
	delete(lp.conns, lc.id)
	f := os.NewFile(uintptr(lc.fd), "")
	nc, err := net.FileConn(f)
	lc.mu.Lock()
	f.Close()
	lc.fd = -1
	killed := lc.killed
	var p *tlsPipe
	if err == nil {
		if p = lc.tls; p != nil {
			nc = graduateTLS(lc, nc)
		}
		lc.inner = nc
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
	oc.nc = nc
	lc.sess.own = oc
	go func() {
		if p != nil {
			p.sendOut() // a failure shows in the first read or write
		}
		lp.s.serveOwn(lc.sess, oc)
	}()
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

func (lc *loopConn) LocalAddr() net.Addr { return lc.local }

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
	if r.lc.fd < 0 {
		return net.ErrClosed
	}
	f(uintptr(r.lc.fd))
	return nil
}

func (loopRaw) Read(func(fd uintptr) bool) error { return errServedByLoop }

func (loopRaw) Write(func(fd uintptr) bool) error { return errServedByLoop }

var errServedByLoop = errors.New("connection served by the event loop")
