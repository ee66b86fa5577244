package server

import (
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

var nextClientID atomic.Int64

// session is one client connection's state.
type session struct {
	id      int64
	conn    redcon.Conn
	addr    string
	db      int
	name    string
	created time.Time
	lastCmd atomic.Int64 // unix ms of the last command
}

func newSession(c redcon.Conn) *session {
	s := &session{id: nextClientID.Add(1), conn: c, addr: c.RemoteAddr(), created: time.Now()}
	s.lastCmd.Store(time.Now().UnixMilli())
	return s
}

func (s *session) ID() int64   { return s.id }
func (s *session) DB() int     { return s.db }
func (s *session) SetDB(i int) { s.db = i }
