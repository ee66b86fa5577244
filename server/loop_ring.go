package server

import (
	"errors"
	"math"
)

// The turn's reads and writes through the ring (uring_linux.go): one system
// call for all the readable connections, one for all the replies. Without a
// ring, or for a single connection, read and flush do them one by one.

// ringLost marks a result the ring never gave: the ring failed after taking
// the operation, which may or may not have run.
const ringLost = math.MinInt32

var errRingOps = errors.New("the kernel's io_uring cannot send or receive on sockets")

// readAll reads the connections the poller found readable.
func (lp *eventLoop) readAll(lcs []*loopConn) {
	if lp.ring != nil {
		lcs = lp.readHeldTLS(lcs)
		defer clear(lp.ringPlain)
	}
	if lp.ring == nil || len(lcs) < 2 {
		for _, lc := range lcs {
			lp.read(lc)
		}
		return
	}
	for len(lcs) > 0 && lp.ring != nil {
		batch := lcs[:min(len(lcs), int(lp.ring.size))]
		lcs = lcs[len(batch):]
		lp.sizeTLSIn(batch)
		for i, lc := range batch {
			lp.ringAsked[i] = 0
			if !lc.closing && !lc.dead {
				room := lp.ringRoom(lc, i)
				lp.ring.add(true, lc.fd, room, i)
				lp.ringAsked[i] = len(room)
			}
		}
		lp.runRing(len(batch))
		for i, lc := range batch {
			lp.ringRead(lc, i)
		}
	}
	for _, lc := range lcs {
		lp.read(lc)
	}
}

// ringRoom is where the ring reads lc, the batch's i-th: a TLS client's
// records go to its share of tlsIn, for crypto/tls to take.
func (lp *eventLoop) ringRoom(lc *loopConn, i int) []byte {
	if lc.tls == nil {
		return lc.room(0)
	}
	return lp.tlsIn[i*tlsRingRead : (i+1)*tlsRingRead]
}

// sizeTLSIn makes tlsIn hold a share for each of the batch's connections
// when one of them is a TLS client (before the ring holds any of it).
func (lp *eventLoop) sizeTLSIn(batch []*loopConn) {
	if len(lp.tlsIn) >= len(batch)*tlsRingRead {
		return
	}
	for _, lc := range batch {
		if lc.tls != nil {
			lp.tlsIn = make([]byte, len(batch)*tlsRingRead)
			return
		}
	}
}

// ringRead takes in the ring's read of lc, the batch's i-th, and parses
// the commands it completed.
func (lp *eventLoop) ringRead(lc *loopConn, i int) {
	asked, res := lp.ringAsked[i], lp.ringRes[i]
	switch {
	case asked == 0:
		return
	case res == ringLost:
		lc.dead = true // what it sent may be lost: never run what follows it
		return
	case ringUnsupported(res):
		lp.dropRing(errRingOps)
		lp.read(lc)
		return
	case lc.tls != nil:
		n, err := ringResult(res)
		lc.tls.ringRead(lp.tlsIn[i*tlsRingRead:i*tlsRingRead+max(n, 0)], err, asked)
		lp.readOn(lc, 0)
		lc.tls.keepIn()
	default:
		n, err := ringResult(res)
		if lc.received(n, err, asked) {
			lp.readOn(lc, n)
		}
	}
	lp.parse(lc)
}

// readHeldTLS reads, one by one, the TLS clients of lcs that hold records
// a turn read and did not take (their next bytes must follow those), and
// returns the others, for the ring.
func (lp *eventLoop) readHeldTLS(lcs []*loopConn) []*loopConn {
	rest := lp.ringPlain[:0]
	for _, lc := range lcs {
		if lc.tls != nil && len(lc.tls.in) > 0 {
			lp.read(lc)
		} else {
			rest = append(rest, lc)
		}
	}
	lp.ringPlain = rest
	return rest
}

// sendAll writes the replies of the turn's connections as far as their
// sockets take them; flush then does the rest of each one's bookkeeping.
func (lp *eventLoop) sendAll(lcs []*loopConn) {
	if lp.ring == nil {
		return
	}
	send := lp.ringSend[:0]
	for _, lc := range lcs {
		if lc.gone || lc.dead {
			continue
		}
		// A TLS client's replies are sealed now, and its records go with
		// the plain clients' replies: one system call for the turn.
		if lc.tls != nil && lc.sealTLS() || lc.tls == nil && lc.sent < len(lc.out.b) {
			send = append(send, lc)
		}
	}
	lp.ringSend = send
	defer clear(lp.ringSend)
	if len(send) < 2 {
		return // one write(2) costs what one ring call does
	}
	for len(send) > 0 && lp.ring != nil {
		batch := send[:min(len(send), int(lp.ring.size))]
		send = send[len(batch):]
		for i, lc := range batch {
			if p := lc.tls; p != nil {
				lp.ring.add(false, lc.fd, p.out[p.outSent:], i)
			} else {
				lp.ring.add(false, lc.fd, lc.out.b[lc.sent:], i)
			}
		}
		lp.runRing(len(batch))
		for i, lc := range batch {
			switch res := lp.ringRes[i]; {
			case res == ringLost:
				lc.dead = true // part of a reply may have gone
			case ringUnsupported(res):
				lp.dropRing(errRingOps) // flush writes it
			case lc.tls != nil:
				n, err := ringResult(res)
				lc.tls.wrote(lc, n, err)
			default:
				lc.wrote(ringResult(res))
			}
		}
	}
}

// runRing runs the n operations added; a ring that fails is dropped, and
// the results it did not give read ringLost.
func (lp *eventLoop) runRing(n int) {
	for i := range lp.ringRes[:n] {
		lp.ringRes[i] = ringLost
	}
	if err := lp.ring.run(lp.ringRes); err != nil {
		lp.dropRing(err)
	}
}

// dropRing goes back to a system call per read and write for good.
func (lp *eventLoop) dropRing(err error) {
	if lp.ring == nil {
		return
	}
	lp.s.cfg.Logger.Warn("event loop: io_uring failed; reading and writing one call at a time", "err", err)
	lp.closeRing()
}

func (lp *eventLoop) closeRing() {
	if lp.ring != nil {
		lp.ringOn.Store(false)
		lp.ring.close()
		lp.ring = nil
	}
}
