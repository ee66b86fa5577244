package server

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/qlessd/qlessd/commands"
)

// startACL gives the server its users: the default user as requirepass
// sets it, then those of the aclfile when one is set (the file replaces
// them all, and a file that cannot be read stops the start, as in Redis).
func (s *Server) startACL() error {
	s.acl = commands.NewACL(s.table, s.cfg.RequirePass)
	s.acl.OnDelete = s.dropUsers
	s.acl.OnRevoke = s.dropRevokedSubscribers
	if n, err := strconv.ParseInt(s.cfg.Settings["acl-log-max-len"], 10, 64); err == nil {
		s.acl.LogMax.Store(n)
	}
	if f := s.cfg.Settings["aclfile"]; f != "" {
		// ACL SAVE and LOAD find it whatever the working directory.
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		s.acl.File = f
		if err := s.acl.LoadFile(nil); err != nil {
			return fmt.Errorf("aborting start because of ACL errors: %v", err)
		}
	}
	return nil
}

// ACL returns the server's users, for the dashboard's questions.
func (s *Server) ACL() *commands.ACL { return s.acl }

// aclDenied checks a command of a user that is not unrestricted before it
// runs or is queued; on a denial it replies NOPERM, logs it and reports
// true.
func (s *Server) aclDenied(sess *session, cmd *commands.Cmd, args [][]byte, w replyWriter) bool {
	context := "toplevel"
	if sess.multi != nil {
		context = "multi"
	}
	ctx := commands.Ctx{Sess: sess, Table: s.table}
	d, ok := s.acl.CheckCall(&ctx, cmd, args, context)
	if ok {
		return false
	}
	s.reject(sess, cmd, args, w, commands.NoPerm(d))
	return true
}

// dropUsers closes the connections authenticated as users that were
// removed, as Redis does on ACL DELUSER.
func (s *Server) dropUsers(caller commands.Session, users []*commands.User) {
	me, _ := caller.(*session)
	gone := map[*commands.User]bool{}
	for _, u := range users {
		gone[u] = true
	}
	for _, sess := range s.allSessions() {
		if gone[sess.user.Load()] {
			s.kill(me, sess)
		}
	}
}

// dropRevokedSubscribers closes the connections of user subscribed to a
// channel or pattern that grant does not permit, as Redis 7.0 does after
// ACL SETUSER narrowed the user's channels. The caller itself (a RESP3
// subscriber changing its own user) gets its reply first, then is closed:
// Redis 7.0 crashes there, later versions close after the reply.
func (s *Server) dropRevokedSubscribers(caller commands.Session, user *commands.User, grant commands.ChannelGrant) {
	me, _ := caller.(*session)
	for _, sess := range s.allSessions() {
		if sess.user.Load() == user && !s.subscriptionsPermitted(sess, grant) {
			s.kill(me, sess)
		}
	}
}

// subscriptionsPermitted reports whether every channel, pattern and shard
// channel sess is subscribed to passes grant.
func (s *Server) subscriptionsPermitted(sess *session, grant commands.ChannelGrant) bool {
	s.pubsub.mu.RLock()
	defer s.pubsub.mu.RUnlock()
	for p := range sess.patterns {
		if !grant.Permits(p, true) {
			return false
		}
	}
	for _, subs := range []map[string]struct{}{sess.channels, sess.shards} {
		for ch := range subs {
			if !grant.Permits(ch, false) {
				return false
			}
		}
	}
	return true
}

// ACLUser implements commands.ACLSession.
func (s *session) ACLUser() *commands.User { return s.user.Load() }

// ClientInfo implements commands.ACLSession: the CLIENT LIST line.
func (s *session) ClientInfo() string { return s.srv.clientLine(s, nil) }

// execDenials checks the queued commands again at EXEC, as Redis does in
// case the user's rules changed since: the error for each one now denied
// ("" for the others), or nil when the user may run anything.
func (s *session) execDenials(cmds []queued) []string {
	u := s.user.Load()
	if u.Unrestricted() {
		return nil
	}
	out := make([]string, len(cmds))
	ctx := commands.Ctx{Sess: s, Table: s.srv.table}
	for i, q := range cmds {
		if d, ok := s.srv.acl.CheckCall(&ctx, q.cmd, q.args, "multi"); !ok {
			out[i] = commands.ExecNoPerm(d)
		}
	}
	return out
}
