package server

import "github.com/qlessd/qlessd/internal/memback"

// read takes what the connection has sent so far and the commands in it.
func (lp *eventLoop) read(lc *loopConn) {
	if lc.closing || lc.dead {
		return
	}
	if lc.tls != nil {
		lc.tls.drained = false // the poller found it readable, or it owes input
	}
	lp.readOn(lc, 0)
	lp.parse(lc)
}

// readOn reads until the socket is empty or the turn took its share of the
// connection's input, took of it read already.
func (lp *eventLoop) readOn(lc *loopConn, took int) {
	for {
		room := lc.room(took)
		if len(room) == 0 {
			lp.moreTLS(lc) // the turn had its share of what crypto/tls holds
			return
		}
		n, err := lc.sockRead(room)
		if !lc.received(n, err, len(room)) {
			return
		}
		took += n
	}
}

// room is where the next read goes, took of the turn's input read already:
// the long argument being read (commands.BigArg bytes or more) has a
// buffer of its own, which the socket fills directly.
// A turn takes turnInput; of a long argument being read, which runs nothing
// until it is whole, it takes up to argTurnInput but nothing past it, as
// Redis reads no further either. Empty when the turn has its share.
func (lc *loopConn) room(took int) []byte {
	if big := lc.req.bigRoom(); big != nil {
		lc.intoBig = true
		return big[:min(len(big), max(argTurnInput-took, 0))]
	}
	lc.intoBig = false
	missing := lc.parsed + lc.req.need() - len(lc.in)
	if cap(lc.in)-len(lc.in) < minRead {
		lc.in = grow(lc.in, missing)
	}
	limit := turnInput
	if missing+took > turnInput { // what the argument missed as the turn began
		limit = min(missing+took, argTurnInput)
	}
	return lc.in[len(lc.in):min(cap(lc.in), len(lc.in)+max(limit-took, 0))]
}

// received takes in a read of asked bytes that gave n, or err. It reports
// whether the socket may hold more: once it gave less than asked for it is
// empty, and asking again would only say so.
func (lc *loopConn) received(n int, err error, asked int) bool {
	switch {
	case n > 0 && lc.intoBig:
		lc.req.bigRead(n)
	case n > 0:
		lc.in = lc.in[:len(lc.in)+n]
	}
	if err != nil && !wouldBlock(err) || err == nil && n == 0 {
		lc.closing = true // end of stream or a reset: run what came before it
	}
	return err == nil && n == asked
}

// minRead is the least room a read is given.
const minRead = 16 << 10

// turnInput is the most of a connection's input one turn takes, as Redis
// reads 16 KB per client per turn; the rest waits in the socket for the
// next turn. A client pipelining thousands of scripts (a bulk load through
// qless.lua) would otherwise hold every other client for its whole
// pipeline.
const turnInput = 16 << 10

// argTurnInput is the most of a long argument's bytes one turn takes: 64
// turns of 16 KB would each cost a wait for the poller, for no command.
const argTurnInput = 1 << 20

// endTurn drops the input the turn's commands took.
func (lc *loopConn) endTurn() {
	rest := copy(lc.in, lc.in[lc.parsed:])
	lc.in, lc.parsed = lc.in[:rest], 0
	if rest == 0 && cap(lc.in) > 4*minRead {
		lc.in = nil
	}
	lc.sess.bufs.publish(len(lc.in), cap(lc.in), len(lc.out.b)-lc.sent, cap(lc.out.b))
	clear(lc.argBuf)
	lc.argBuf = lc.argBuf[:0]
	memback.Gone(lc.bigIn)
	lc.bigIn = 0
	clear(lc.cmds)
	lc.cmds = lc.cmds[:0]
}

// finishTurn sends the turn's replies, then closes or graduates the
// connections that are to go.
func (lp *eventLoop) finishTurn() {
	lp.sendAll(lp.turn)
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
		case lc.closing && !lc.owes():
			lp.closeConn(lc)
		default:
			lc.endTurn()
		}
	}
	clear(lp.turn)
	lp.turn = lp.turn[:0]
}

// flush writes what the socket takes now. While output waits, the poller
// watches for room; a closing connection is no longer watched for input,
// whose end would otherwise wake the loop on every turn.
func (lp *eventLoop) flush(lc *loopConn) {
	if lc.tls != nil {
		lp.flushTLS(lc)
	}
	for lc.sent < len(lc.out.b) && lc.tls == nil {
		n, err := sockWrite(lc.fd, lc.out.b[lc.sent:])
		if !lc.wrote(n, err) {
			break
		}
	}
	if lc.dead {
		return
	}
	want := watchIn
	if lc.owes() {
		want = watchOut
		if !lc.closing {
			want |= watchIn
		}
	} else {
		lc.sent = 0
		if cap(lc.out.b) > 64<<10 {
			memback.Gone(cap(lc.out.b))
			lc.out.b = nil
		} else {
			lc.out.b = lc.out.b[:0]
		}
	}
	if want != lc.watching && lp.p.watch(lc.fd, lc.id, lc.watching, want) == nil {
		lc.watching = want
	}
}

// wrote takes in a write that sent n bytes, or failed with err. It reports
// whether the socket may take more.
func (lc *loopConn) wrote(n int, err error) bool {
	if n > 0 {
		lc.sent += n
	}
	if err != nil && !wouldBlock(err) {
		lc.dead = true
	}
	return err == nil
}
