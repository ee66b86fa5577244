package server

import (
	"errors"
	"strconv"
)

// Redis's defaults for the request limits.
const (
	defaultMaxBulk  = 512 << 20 // proto-max-bulk-len
	defaultMaxQuery = 1 << 30   // client-query-buffer-limit
)

// errQueryLimit closes a client whose unfinished command passed
// client-query-buffer-limit. Like Redis, qlessd tells it nothing.
var errQueryLimit = errors.New("client reached max query buffer length")

// reqLimits are what sess's next command may be.
func (s *Server) reqLimits(sess *session) reqLimits {
	return reqLimits{maxBulk: s.maxBulk.Load(), unauth: s.authRequired(sess)}
}

// authRequired is Redis's authRequired: the client has not authenticated
// and a password is set.
func (s *Server) authRequired(sess *session) bool {
	return !sess.authed.Load() && s.acl.NeedAuth()
}

// overQueryLimit reports whether the unfinished command in pending, which
// costs held more, passes client-query-buffer-limit; it logs the client it
// closes, as Redis does.
func (s *Server) overQueryLimit(sess *session, pending []byte, held int) bool {
	if int64(len(pending))+int64(held) <= s.maxQuery.Load() {
		return false
	}
	s.cfg.Logger.Warn("Closing client that reached max query buffer length",
		"id", sess.id, "addr", sess.addr, "qbuf", len(pending), "args_held", held/argBookkeeping,
		"qbuf_initial_bytes", strconv.Quote(string(pending[:min(len(pending), 64)])))
	return true
}
