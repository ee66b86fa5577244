package server

import (
	"time"
)

// serveDetached reads and runs a subscriber's commands until it closes.
// From its first SUBSCRIBE on, the connection's goroutine reads and runs
// its commands and the outbox's goroutine writes, so publishers append to
// the outbox and never wait for the subscriber's socket (serveOwn sends
// the replies before it first, then the messages parked since the
// subscription). Idle timeout applies only outside subscribe mode, as in
// Redis.
func (s *Server) serveDetached(sess *session) {
	defer s.drop(sess)
	for {
		if s.cfg.Timeout > 0 && sess.subscriptions() == 0 {
			sess.netConn.SetReadDeadline(time.Now().Add(s.cfg.Timeout))
		} else {
			sess.netConn.SetReadDeadline(time.Time{})
		}
		args, err := sess.dc.ReadCommand()
		if err != nil {
			if isProtocolError(err) {
				sess.out.release([]byte("-ERR " + err.Error() + "\r\n"))
				sess.out.finish(true)
				return
			}
			sess.out.finish(false)
			sess.netConn.Close()
			return
		}
		if !s.life.enter() {
			sess.out.finish(false)
			sess.netConn.Close()
			return
		}
		sess.out.hold()
		var buf bufWriter
		quit := s.process(sess, args, &buf)
		sess.out.release(buf.b)
		s.life.leave()
		if quit || sess.closeAfterReply {
			sess.out.finish(true)
			return
		}
	}
}

// overflowed drops a subscriber whose pending output passed the limit. It
// runs inside a delivery, so it only closes the socket: the reading
// goroutine then cleans up.
func (sess *session) overflowed(pending int) {
	sess.srv.cfg.Logger.Warn("Client scheduled to be closed ASAP for overcoming of output buffer limits.",
		"id", sess.id, "addr", sess.addr, "name", sess.getName(), "omem", pending)
	sess.netConn.Close()
}

// drop forgets a closed connection: subscriptions, watches, the session,
// then tells OnDisconnect hooks. It runs once per session.
func (s *Server) drop(sess *session) {
	sess.dropOnce.Do(func() {
		s.mu.Lock()
		delete(s.sessions, sess.id)
		s.mu.Unlock()
		s.unsubscribeAll(sess)
		s.stopMonitoring(sess)
		sess.unwatchAll()
		sess.setMulti(nil)
		s.hooks.run(sess.id)
	})
}

// OnDisconnect registers fn to run as soon as a client connection closes,
// with the client's id (CLIENT ID). Hooks run after the client's
// subscriptions and watches are gone, outside any server lock, one
// disconnect at a time per client; a slow hook delays only that cleanup.
func (s *Server) OnDisconnect(fn func(sessionID int64)) {
	s.hooks.add(fn)
}

// closeDetached closes every connection left once the event loops, or the
// accepting goroutine, have stopped.
func (s *Server) closeDetached() {
	s.mu.Lock()
	var list []*session
	for _, sess := range s.sessions {
		list = append(list, sess)
	}
	s.mu.Unlock()
	for _, sess := range list {
		s.pubsub.mu.RLock()
		out := sess.out
		s.pubsub.mu.RUnlock()
		if out != nil {
			out.finish(false)
		}
		sess.netConn.Close()
	}
}
