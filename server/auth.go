package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// authenticate opens the session as user with pass, or logs the failure
// (object: the command as typed, AUTH or HELLO) and reports false.
func (s *session) authenticate(user, pass []byte, cmdName string) bool {
	u := s.srv.acl.Authenticate(user, pass)
	if u == nil {
		s.srv.acl.LogAuthFailure(s, string(user), cmdName)
		return false
	}
	s.user.Store(u)
	s.authed.Store(true)
	return true
}

// RequirePass returns requirepass as it is now (CONFIG SET changes it),
// for listeners other than RESP's that ask for the same password.
func (s *Server) RequirePass() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.RequirePass
}

// Auth implements AUTH <password> and AUTH <username> <password>.
func (s *session) Auth(c *commands.Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(commands.ErrSyntax)
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if s.srv.acl.DefaultNoPass() {
			c.Error(commands.ErrAuthNoPass)
			return
		}
	} else {
		user, pass = args[1], args[2]
	}
	if !s.authenticate(user, pass, string(args[0])) {
		c.Error(commands.ErrWrongPass)
		return
	}
	c.OK()
}

// Hello implements HELLO [protover [AUTH user pass] [SETNAME name]]: the
// connection speaks protover (2 or 3) from its reply on, which is a map
// (a flat array in RESP2). Without protover it keeps its protocol.
func (s *session) Hello(c *commands.Ctx, args [][]byte) {
	var ver int64
	if len(args) >= 2 {
		v, ok := commands.ParseInt(args[1])
		if !ok {
			c.Error(commands.ErrHelloProto)
			return
		}
		if v < 2 || v > 3 {
			c.Error(commands.ErrNoProto)
			return
		}
		ver = v
	}
	var user, pass, name []byte
	hasName := false
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case commands.EqualFold(args[j], "auth") && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case commands.EqualFold(args[j], "setname") && more >= 1:
			name, hasName = args[j+1], true
			j++
		default:
			c.Error(commands.Errorf(commands.ErrHelloOption, string(args[j])))
			return
		}
	}
	if user != nil {
		if !s.authenticate(user, pass, string(args[0])) {
			c.Error(commands.ErrWrongPass)
			return
		}
	}
	if !s.authed.Load() {
		c.Error(commands.ErrHelloNoAuth)
		return
	}
	if hasName {
		if !validClientName(name) {
			c.Error(commands.ErrClientName)
			return
		}
		s.setName(string(name))
	}
	if ver != 0 {
		s.resp3.Store(ver == 3)
		resp.SetResp3(c.W, ver == 3)
	}
	w := c.W
	w.WriteMap(7)
	w.WriteBulkString("server")
	w.WriteBulkString("redis")
	w.WriteBulkString("version")
	w.WriteBulkString(commands.RedisVersion)
	w.WriteBulkString("proto")
	w.WriteInt(int64(s.proto()))
	w.WriteBulkString("id")
	w.WriteInt(s.id)
	w.WriteBulkString("mode")
	w.WriteBulkString("standalone")
	w.WriteBulkString("role")
	w.WriteBulkString("master")
	w.WriteBulkString("modules")
	w.WriteArray(0)
}

// validClientName allows printable ASCII without spaces, as Redis does.
func validClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}
