package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// Reset implements RESET: the connection returns to its state at connect.
func (s *session) Reset(c *commands.Ctx) {
	s.setMulti(nil)
	s.unwatchAll()
	s.srv.unsubscribeAll(s)
	s.srv.stopMonitoring(s)
	s.SetDB(0)
	s.setName("")
	s.replyOff, s.replySkip = false, false
	s.user.Store(s.srv.acl.Default)
	s.authed.Store(!s.srv.acl.NeedAuth())
	s.resp3.Store(false)
	resp.SetResp3(c.W, false)
	c.W.WriteStatus("RESET")
}
