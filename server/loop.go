package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/internal/memback"
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
// first command that may wait (blocking pops, WAIT), subscribe, or start
// MULTI; it stays there. Scripts run in the loop, with a stand-in to answer
// the others once one is past lua-time-limit (loop_busy.go).
type eventLoop struct {
	s    *Server
	p    *poller
	done chan struct{}

	conns  map[uint32]*loopConn
	nextID uint32
	ready  []readyEvent
	turn   []*loopConn // connections with something to do this turn
	batch  loopBatch
	refuse bool        // the store refused a batch this turn: run the rest alone
	toRead []*loopConn // the turn's readable connections, read together
	// tlsMore are TLS clients the next turn reads whatever the poller says
	tlsMore []*loopConn

	// ring does the turn's reads and writes in a call each (loop_ring.go);
	// nil where io_uring is missing, off, or failed.
	ring      *ring
	ringOn    atomic.Bool // ring is set: for IOUring, from other goroutines
	ringRes   []int32
	ringAsked []int
	ringSend  []*loopConn
	ringPlain []*loopConn // the turn's readable connections the ring reads
	// tlsIn is where the ring reads TLS clients' records, tlsRingRead bytes
	// for each; crypto/tls takes them from there in the same turn
	tlsIn []byte

	// own is held by whoever serves the loop's connections: the loop's
	// goroutine, except while it is away (running a script, or waiting
	// for the store), when a stand-in may answer them (loop_busy.go).
	own       sync.Mutex
	isAway    atomic.Bool
	standing  atomic.Bool    // the stand-in serves
	scriptsOn *loopConn      // the connection the loop is away with, if any
	standBy   *time.Timer    // starts the stand-in once a script is past its limit
	standDone sync.WaitGroup // one per step away: done when no stand-in runs for it
	// runningOn is the connection whose command runNext runs; aside: the
	// loop stepped away during it, for a long library call (stepAside).
	runningOn *loopConn
	aside     bool

	mu       sync.Mutex // guards what other goroutines hand the loop
	incoming []*loopConn
	killed   []*loopConn
	stopping bool
}

func newEventLoop(s *Server) (*eventLoop, error) {
	p, err := newPoller()
	if err != nil {
		return nil, err
	}
	lp := &eventLoop{s: s, p: p, done: make(chan struct{}), conns: map[uint32]*loopConn{}}
	lp.standBy = time.AfterFunc(time.Hour, lp.standIn)
	lp.standBy.Stop()
	if s.cfg.IOUring {
		if r, err := newRing(); err != nil {
			s.cfg.Logger.Info("event loop: no io_uring; reading and writing one call at a time", "err", err)
		} else {
			lp.ring, lp.ringRes, lp.ringAsked = r, make([]int32, r.size), make([]int, r.size)
			lp.ringOn.Store(true)
		}
	}
	return lp, nil
}

// makeLoops makes the event loops, before any listener hands them a
// connection.
func (s *Server) makeLoops() error {
	n := max(s.cfg.EventLoops, 1)
	for range n {
		lp, err := newEventLoop(s)
		if err != nil {
			s.dropLoops()
			s.loops = nil
			return err
		}
		s.loops = append(s.loops, lp)
	}
	return nil
}

// dropLoops forgets loops made and not run; a connection handed to one
// late (its handshake was under way) is dropped.
func (s *Server) dropLoops() {
	for _, lp := range s.loops {
		lp.mu.Lock()
		lp.stopping = true
		lp.p.close()
		lp.mu.Unlock()
		lp.closeRing()
	}
}

// runLoops runs the event loops and, for the plain port (ln; nil when
// only TLS is served), the goroutine that accepts for them, each new
// connection going to the next loop in turn.
func (s *Server) runLoops(ln net.Listener) {
	for _, lp := range s.loops {
		go lp.run()
	}
	if ln != nil {
		go s.acceptLoop(ln, s.take)
	}
	go func() {
		for _, lp := range s.loops {
			<-lp.done
		}
		s.life.accepted()
	}()
}

// EventLoops returns how many event loops serve connections: 0 when each
// connection has a goroutine.
func (s *Server) EventLoops() int { return len(s.loops) }

// IOUring reports whether the event loops read and write through io_uring.
func (s *Server) IOUring() bool { return len(s.loops) > 0 && s.loops[0].ringOn.Load() }

func (lp *eventLoop) adopt(c net.Conn, replica bool) {
	fd, err := takeFD(c)
	if err != nil {
		if isFDLimit(err) {
			lp.s.refuseFull(c)
			return
		}
		lp.s.cfg.Logger.Warn("event loop: cannot take a connection", "err", err)
		c.Close()
		return
	}
	lc := &loopConn{lp: lp, fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	sess := newSession(lp.s, lc, c.RemoteAddr().String())
	sess.replica = replica
	sess.lc = lc
	lc.sess = sess
	if !lp.s.admit(sess, c) {
		c.Close()
		closeFD(fd)
		return
	}
	// The loop's duplicate keeps the socket open.
	if p := pipeOf(c); p != nil {
		p.toLoop(lc)
	} else {
		c.Close()
	}
	lp.mu.Lock()
	if lp.stopping {
		lp.mu.Unlock()
		closeFD(fd)
		go lp.s.drop(sess)
		return
	}
	lp.incoming = append(lp.incoming, lc)
	lp.p.wake() // under mu: closeAll closes the pipe under it too
	lp.mu.Unlock()
}

// run is the loop. It returns once stop has been called.
func (lp *eventLoop) run() {
	defer close(lp.done)
	lp.own.Lock()
	defer lp.own.Unlock()
	lastSweep := time.Now()
	for {
		timeout := -1
		if lp.s.cfg.Timeout > 0 {
			timeout = 1000
		}
		if len(lp.tlsMore) > 0 {
			timeout = 0
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
			if lc == nil {
				continue
			}
			lp.join(lc)
			if ev.writable {
				lp.flush(lc)
			}
			if ev.readable {
				lc.toRead = true
				lp.toRead = append(lp.toRead, lc)
			}
		}
		lp.takeMoreTLS()
		lp.readAll(lp.toRead)
		for _, lc := range lp.toRead {
			lc.toRead = false
		}
		clear(lp.toRead)
		lp.toRead = lp.toRead[:0]
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
	lp.register(incoming)
	for _, lc := range killed {
		if !lc.gone && lc.inner == nil {
			lp.closeConn(lc)
		}
	}
	return stopping
}

// register starts watching new connections.
func (lp *eventLoop) register(incoming []*loopConn) {
	for _, lc := range incoming {
		lp.nextID++
		if lp.nextID == wakeID {
			lp.nextID++
		}
		lc.id = lp.nextID
		lc.watching = watchIn
		if err := lp.p.add(lc.fd, lc.id); err != nil {
			lp.s.cfg.Logger.Error("event loop: cannot watch a connection", "err", err)
			lp.closeConn(lc)
			continue
		}
		lp.conns[lc.id] = lc
		// The handshake may have read the client's first commands.
		lp.moreTLS(lc)
	}
}

func (lp *eventLoop) closeConn(lc *loopConn) {
	if lc.gone {
		return
	}
	lc.gone = true
	lp.p.remove(lc.fd)
	delete(lp.conns, lc.id)
	lc.sayGoodbye()
	lc.mu.Lock()
	closeFD(lc.fd)
	lc.fd = -1
	lc.mu.Unlock()
	// A long argument read in part goes with the connection.
	memback.Gone(lc.req.held() + cap(lc.in) + lc.bigIn)
	lc.req, lc.in = reqParser{}, nil
	go lp.s.drop(lc.sess)
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
	lp.closeRing()
}

// stop ends the loop and waits for it: its connections close.
func (lp *eventLoop) stop() {
	lp.mu.Lock()
	if !lp.stopping {
		lp.stopping = true
		lp.p.wake()
	}
	lp.mu.Unlock()
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
