package server

import "net"

// A reply that hands something over (QLESS bpop's popped jobs) comes with
// a hand-back, commands.Ctx.Undelivered, for when it never reaches the
// client. The buffer the reply is written to owes it until the reply is
// sent: a send that finds the connection closed, or whose write fails,
// runs it, and so does a connection goroutine that stops with the reply
// unsent. A client that left before it was served took nothing
// (serveBlocked skips it); this is for one that leaves after. A client
// that shuts down only its sending side counts as gone, as it does while
// it waits; one that dies after the write succeeded is not seen, and its
// jobs come back as their locks expire.
//
// Only a connection served by a goroutine of its own sends such replies:
// QLESS bpop takes a connection out of the event loop before it runs. A
// connection that has subscribed before sends its replies through its
// outbox, which owes nothing.

// owe records fn, the hand-back of the reply just written to w.
func owe(w replyWriter, fn func()) {
	if b, ok := w.(*bufWriter); ok && fn != nil {
		b.owed = append(b.owed, fn)
	}
}

// handBack runs the hand-backs of replies that were not sent.
func handBack(owed []func()) {
	for _, fn := range owed {
		fn()
	}
}

// send writes oc's pending replies. When some owe a hand-back, a client
// already gone is not written to: a write to a socket the peer has closed
// usually succeeds.
func (oc *ownConn) send() error {
	owed := oc.out.owed
	oc.out.owed = nil
	var err error
	if len(owed) > 0 && connClosed(oc.nc) {
		err = net.ErrClosed
	} else {
		_, err = oc.nc.Write(oc.out.b)
	}
	if err != nil {
		handBack(owed)
	}
	return err
}
