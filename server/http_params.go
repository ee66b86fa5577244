package server

import "github.com/qlessd/qlessd/commands"

// What the HTTP listener (package httpd) reads of the server's settings on
// each request, so that CONFIG SET applies at once.

// HTTPAllowedHosts returns http-allowed-hosts, as CONFIG SET left it.
func (s *Server) HTTPAllowedHosts() []string {
	s.mu.Lock()
	v := s.cfg.HTTPAllowedHosts
	s.mu.Unlock()
	hosts, _ := commands.SplitHostList(v) // checked when set
	return hosts
}

// Protected reports whether protected mode applies now: it is on and the
// default user has no password (CONFIG SET and ACL SETUSER may change
// either at any time), as admit decides for RESP. Clients from
// beyond loopback are then refused, over RESP and HTTP alike.
func (s *Server) Protected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.ProtectedMode && s.acl.DefaultNoPass()
}
