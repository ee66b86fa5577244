package server

// read takes what the connection has sent so far and the commands in it.
func (lp *eventLoop) read(lc *loopConn) {
	if lc.closing || lc.dead {
		return
	}
	for took := 0; took < turnInput; {
		if cap(lc.in)-len(lc.in) < minRead {
			grown := make([]byte, len(lc.in), max(2*cap(lc.in), len(lc.in)+minRead))
			copy(grown, lc.in)
			lc.in = grown
		}
		room := lc.in[len(lc.in):min(cap(lc.in), len(lc.in)+turnInput-took)]
		n, err := sockRead(lc.fd, room)
		if n > 0 {
			lc.in = lc.in[:len(lc.in)+n]
			took += n
		}
		if err != nil && !wouldBlock(err) || err == nil && n == 0 {
			lc.closing = true // end of stream or a reset: run what came before it
		}
		// Stop once the socket gave less than asked for: it is empty now,
		// and asking again would only say so.
		if err != nil || n < len(room) {
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
			rc := loopCmd{args: args[before:len(args):len(args)], cmd: lp.s.table.Lookup(args[before]), start: start}
			rc.script = rc.cmd != nil && lp.s.runsLong(rc.cmd, rc.args)
			lc.cmds = append(lc.cmds, rc)
		}
	}
}

// minRead is the least room a read is given.
const minRead = 16 << 10

// turnInput is the most of a connection's input one turn takes, as Redis
// reads 16 KB per client per turn; the rest waits in the socket for the
// next turn. A client pipelining thousands of scripts (a bulk load through
// qless.lua) would otherwise hold every other client for its whole
// pipeline.
const turnInput = 16 << 10

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

// flush writes what the socket takes now. While output waits, the poller
// watches for room; a closing connection is no longer watched for input,
// whose end would otherwise wake the loop on every turn.
func (lp *eventLoop) flush(lc *loopConn) {
	for lc.sent < len(lc.out.b) {
		n, err := sockWrite(lc.fd, lc.out.b[lc.sent:])
		if n > 0 {
			lc.sent += n
		}
		if err != nil {
			if wouldBlock(err) {
				break
			}
			lc.dead = true
			return
		}
	}
	want := watchIn
	if lc.sent < len(lc.out.b) {
		want = watchOut
		if !lc.closing {
			want |= watchIn
		}
	} else {
		lc.sent = 0
		if cap(lc.out.b) > 64<<10 {
			lc.out.b = nil
		} else {
			lc.out.b = lc.out.b[:0]
		}
	}
	if want != lc.watching && lp.p.watch(lc.fd, lc.id, lc.watching, want) == nil {
		lc.watching = want
	}
}
