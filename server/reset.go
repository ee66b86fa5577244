package server

import "github.com/qlessd/qlessd/commands"

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
	c.W.WriteStatus("RESET")
}
