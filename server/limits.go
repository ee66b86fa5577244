package server

import (
	"errors"
	"strconv"
	"sync/atomic"
)

// Redis's defaults for the request limits.
const (
	defaultMaxBulk  = 512 << 20 // proto-max-bulk-len
	defaultMaxQuery = 1 << 30   // client-query-buffer-limit
)

// errQueryLimit closes a client whose unfinished command passed
// client-query-buffer-limit. Like Redis, qlessd tells it nothing.
var errQueryLimit = errors.New("client reached max query buffer length")

// requestLimits are what every command read checks, kept apart from cfg
// (which CONFIG SET changes under the server lock): CONFIG SET stores
// them here, through atomicParams.
type requestLimits struct {
	maxBulk  atomic.Int64 // proto-max-bulk-len
	maxQuery atomic.Int64 // client-query-buffer-limit
}

// init starts from cfg's limits, giving those unset Redis's defaults in
// cfg too (CONFIG GET reads them there until a CONFIG SET).
func (l *requestLimits) init(cfg *Config) {
	if cfg.ProtoMaxBulkLen <= 0 {
		cfg.ProtoMaxBulkLen = defaultMaxBulk
	}
	if cfg.ClientQueryBufferLimit <= 0 {
		cfg.ClientQueryBufferLimit = defaultMaxQuery
	}
	l.maxBulk.Store(cfg.ProtoMaxBulkLen)
	l.maxQuery.Store(cfg.ClientQueryBufferLimit)
}

// overQuery reports whether an unfinished command of pending bytes, which
// costs held more, passes client-query-buffer-limit.
func (l *requestLimits) overQuery(pending, held int) bool {
	return int64(pending)+int64(held) > l.maxQuery.Load()
}

// reqLimits are what sess's next command may be.
func (s *Server) reqLimits(sess *session) reqLimits {
	return reqLimits{maxBulk: s.limits.maxBulk.Load(), unauth: s.authRequired(sess)}
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
	if !s.limits.overQuery(len(pending), held) {
		return false
	}
	s.cfg.Logger.Warn("Closing client that reached max query buffer length",
		"id", sess.id, "addr", sess.addr, "qbuf", len(pending), "args_held", held/argBookkeeping,
		"qbuf_initial_bytes", strconv.Quote(string(pending[:min(len(pending), 64)])))
	return true
}
