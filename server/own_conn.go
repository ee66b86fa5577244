package server

import (
	"net"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/internal/memback"
)

// ownConn is a connection served by a goroutine of its own: every one with
// --event-loop no, and those that left an event loop. It reads a command,
// runs it, and sends the replies of a pipeline once no whole command is
// left to read, as the event loop does per turn.
type ownConn struct {
	nc   net.Conn
	sess *session
	in   []byte // input; the command being read starts at from
	from int
	req  reqParser
	args [][]byte
	out  bufWriter // replies not sent yet
	// queued are commands an event loop read and did not run before it
	// handed the connection over; they run first.
	queued []queuedCmd
}

// queuedCmd is a command read, or the protocol error met in its place.
type queuedCmd struct {
	args [][]byte
	err  error
}

// handOver is the size from which a command's arguments keep pointing into
// the input it arrived in, which the connection then leaves to them: a
// long argument is not copied again.
const handOver = 64 << 10

// serveConn serves a connection accepted with --event-loop no.
func (s *Server) serveConn(nc net.Conn, replica bool) {
	if !s.handshake(nc) {
		nc.Close()
		return
	}
	sess := newSession(s, nc, nc.RemoteAddr().String())
	sess.replica = replica
	if !s.admit(sess, nc) {
		nc.Close()
		return
	}
	oc := &ownConn{nc: nc, sess: sess}
	sess.own = oc
	s.serveOwn(sess, oc)
}

// serveOwn runs a connection's commands until it closes. A subscriber's
// replies go through its outbox from then on (serveDetached).
func (s *Server) serveOwn(sess *session, oc *ownConn) {
	for {
		if sess.out != nil && !sess.detached {
			oc.flush()
			sess.dc = oc
			sess.detached = true
			sess.out.release(nil)
			go sess.out.run(sess.netConn)
			s.serveDetached(sess)
			return
		}
		if t := s.cfg.Timeout; t > 0 {
			oc.nc.SetReadDeadline(time.Now().Add(t))
		}
		args, err := oc.ReadCommand()
		if err != nil {
			if isProtocolError(err) {
				oc.out.WriteError("ERR " + err.Error())
				oc.flush()
			}
			break
		}
		if !s.life.enter() {
			break
		}
		quit := s.process(sess, args, &oc.out)
		s.life.leave()
		memback.Gone(bigBytes(args))
		if quit || sess.closeAfterReply {
			oc.flush()
			break
		}
	}
	handBack(oc.out.owed) // replies the loop stopped before sending
	oc.out.owed = nil
	// A long argument read in part goes with the connection.
	memback.Gone(oc.req.held() + cap(oc.in))
	oc.req, oc.in = reqParser{}, nil
	sess.netConn.Close()
	s.drop(sess)
}

// flush sends the replies not sent yet. It reports false when the
// connection failed.
func (oc *ownConn) flush() bool {
	if len(oc.out.b) == 0 {
		return true
	}
	err := oc.send()
	if cap(oc.out.b) > 64<<10 {
		memback.Gone(cap(oc.out.b))
		oc.out.b = nil
	} else {
		oc.out.b = oc.out.b[:0]
	}
	return err == nil
}

// ReadCommand returns the next command, whose arguments stay valid for
// good (MULTI queues them, a blocked command keeps them). Before it waits
// for the socket, the replies so far go out.
func (oc *ownConn) ReadCommand() ([][]byte, error) {
	if len(oc.queued) > 0 {
		q := oc.queued[0]
		oc.queued = oc.queued[1:]
		if q.err == errCrossProtocol {
			oc.sess.srv.crossProtocol(oc.sess)
		}
		return q.args, q.err
	}
	sess := oc.sess
	s := sess.srv
	for {
		if oc.from < len(oc.in) || oc.req.bigRoom() != nil {
			n, args, err := oc.req.next(oc.in[oc.from:], s.reqLimits(sess), oc.args[:0])
			oc.args = args
			switch {
			case err == nil:
				oc.from += n
				if len(args) > 0 {
					sess.owned = oc.req.takeOwned()
					return oc.keep(args, n), nil
				}
				continue
			case err == errCrossProtocol:
				s.crossProtocol(sess)
				return nil, err
			case err != errIncomplete:
				return nil, err
			}
		}
		if !oc.flush() {
			return nil, net.ErrClosed
		}
		sess.bufs.publish(len(oc.in)-oc.from, cap(oc.in), len(oc.out.b), cap(oc.out.b))
		if err := oc.fill(); err != nil {
			return nil, err
		}
		if s.overQueryLimit(sess, oc.in[oc.from:], oc.req.held()) {
			return nil, errQueryLimit
		}
	}
}

// keep makes the arguments of the command that took the n bytes before
// from independent of the input buffer, which is reused.
func (oc *ownConn) keep(args [][]byte, n int) [][]byte {
	defer clear(args) // what they point into may be big: hold on to none of it
	if n >= handOver {
		out := make([][]byte, len(args))
		copy(out, args)
		rest := oc.in[oc.from:]
		oc.in, oc.from = append(make([]byte, 0, max(len(rest), minRead)), rest...), 0
		return out
	}
	return keepArgs(args)
}

// keepArgs copies the short arguments of a command into one block of their
// own; a long one (commands.BigArg bytes or more) is in a buffer of its
// own already and stays there.
func keepArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	size := 0
	for _, a := range args {
		if len(a) < commands.BigArg {
			size += len(a)
		}
	}
	block := make([]byte, 0, size)
	for i, a := range args {
		if len(a) >= commands.BigArg {
			out[i] = a
			continue
		}
		block = append(block, a...)
		out[i] = block[len(block)-len(a) : len(block) : len(block)]
	}
	return out
}

// bigBytes is the size of a command's long arguments, which go back to
// the system once it has run (memback).
func bigBytes(args [][]byte) int {
	n := 0
	for _, a := range args {
		if len(a) >= commands.BigArg {
			n += len(a)
		}
	}
	return n
}

// fill reads what the socket has, into room for at least minRead bytes:
// made by moving the unread input to the front, or by growing the buffer,
// by no more than the argument being read still needs when it is long. Of
// a long argument it reads nothing past its end, as the event loop does;
// one of commands.BigArg bytes or more goes straight into its own buffer.
func (oc *ownConn) fill() error {
	if big := oc.req.bigRoom(); big != nil {
		n, err := oc.nc.Read(big)
		oc.req.bigRead(n)
		if n > 0 {
			return nil
		}
		return err
	}
	if oc.from == len(oc.in) {
		oc.in, oc.from = oc.in[:0], 0
	}
	if cap(oc.in)-len(oc.in) < minRead && oc.from > 0 {
		n := copy(oc.in, oc.in[oc.from:])
		oc.in, oc.from = oc.in[:n], 0
	}
	missing := oc.req.need() - len(oc.in[oc.from:])
	if cap(oc.in)-len(oc.in) < minRead {
		oc.in = grow(oc.in, missing)
	}
	room := oc.in[len(oc.in):cap(oc.in)]
	if missing > minRead {
		room = room[:min(len(room), missing)]
	}
	n, err := oc.nc.Read(room)
	oc.in = oc.in[:len(oc.in)+n]
	if n > 0 {
		return nil // an error comes back with the next read
	}
	return err
}

// grow returns b with room for minRead bytes more, at least: twice its
// size, unless missing, the bytes an argument still needs, is less.
func grow(b []byte, missing int) []byte {
	size := max(2*cap(b), len(b)+minRead)
	if missing > 0 {
		size = min(size, len(b)+max(missing, minRead))
	}
	grown := make([]byte, len(b), size)
	copy(grown, b)
	return grown
}
