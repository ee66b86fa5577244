package server

import (
	"net"

	"github.com/qlessd/qlessd/commands"
)

// A cluster node that does not lead relays its clients to the leader: it
// sees each accepted connection first (SetDivert), and hands back one it
// finds it should serve itself after all (Adopt). When it stops leading,
// its own clients are closed (DropClients) and reconnect, as after a
// Redis restart, to be relayed.

// SetDivert makes fn see every accepted connection before it is served;
// fn returns true when it took the connection. Set it before Start.
func (s *Server) SetDivert(fn func(net.Conn) bool) { s.divert = fn }

// take serves an accepted connection, unless the divert takes it.
func (s *Server) take(c net.Conn) {
	if s.divert != nil && s.divert(c) {
		return
	}
	s.Adopt(c)
}

// Adopt serves a connection accepted elsewhere.
func (s *Server) Adopt(c net.Conn) { s.adopt(c, false) }

func (s *Server) adopt(c net.Conn, replica bool) {
	if len(s.loops) == 0 {
		go s.serveConn(c, replica)
		return
	}
	lp := s.loops[int(s.nextLoop.Add(1))%len(s.loops)]
	if !IsTLS(c) {
		lp.adopt(c, replica)
		return
	}
	// The handshake blocks: the loop takes the connection once it is done.
	go func() {
		if !s.handshake(c) {
			c.Close()
			return
		}
		lp.adopt(c, replica)
	}()
}

// DropClients closes every client connection.
func (s *Server) DropClients() {
	for _, sess := range s.allSessions() {
		s.kill(nil, sess)
	}
}

// Publish delivers messages published elsewhere (on a cluster's leader)
// to this server's subscribers.
func (s *Server) Publish(msgs []commands.Message) { s.pubsub.publish(msgs) }
