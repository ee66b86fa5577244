package server

import (
	"errors"
	"net"

	"github.com/qlessd/qlessd/store"
)

// A cluster's leader answers reads from its own store, which is the
// cluster's only while no other node can have been elected: a leader that
// was stopped (SIGSTOP, a long pause) may resume with its clients' reads
// queued before it learns it was deposed. The read gate (SetReadGate) is
// asked, once a command's reads are done and before its reply goes out,
// whether this node may still answer: a reply that carries a write of its
// own needs no gate (a majority took the write after the command read),
// one that only read does. Connections a follower serves as a replica's
// (AdoptReplica) read its store as it is, and are not gated.

// SetReadGate makes fn pass each reply that only read the store; a non-nil
// error replaces the reply (its RedisReply). Set it before Start.
func (s *Server) SetReadGate(fn func() error) { s.readGate = fn }

// gateRead asks the read gate about a reply to sess (nil: a batch of
// several sessions' commands).
func (s *Server) gateRead(sess *session) error {
	if s.readGate == nil || (sess != nil && sess.replica) {
		return nil
	}
	return s.readGate()
}

// AdoptReplica serves a connection accepted elsewhere as a read-only
// replica's: its reads are not gated.
func (s *Server) AdoptReplica(c net.Conn) { s.adopt(c, true) }

// readCaught is a change of leader met by a command that wrote nothing:
// it has its own reply, since nothing it did may or may not be applied.
type readCaught struct{ *store.ReplicationError }

func (e readCaught) RedisReply() string { return e.ReadReply() }

// asRead gives a failure met by a command that wrote nothing a read's
// reply.
func asRead(err error) error {
	var re *store.ReplicationError
	if errors.As(err, &re) {
		return readCaught{re}
	}
	return err
}
