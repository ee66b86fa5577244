package server

import (
	"bytes"
	"time"
)

// crossProtocolLog is Redis 7.0's warning, word for word, so that log
// watchers set up for Redis see it here too.
const crossProtocolLog = "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. " +
	"This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted."

// isCrossProtocol reports whether a command's name is POST or Host:, in
// any case, as Redis compares it. Checked on every command, so the length
// and one byte first.
func isCrossProtocol(name []byte) bool {
	switch len(name) {
	case 4:
		return name[0]|0x20 == 'p' && bytes.EqualFold(name, []byte("post"))
	case 5:
		return name[4] == ':' && bytes.EqualFold(name, []byte("host:"))
	}
	return false
}

// crossProtocol logs a connection closed for a cross-protocol request, at
// most once a minute as Redis does: an attacker that can make a browser
// send requests could otherwise fill the log.
func (s *Server) crossProtocol(sess *session) {
	now := time.Now().Unix()
	last := s.crossProtocolLogged.Load()
	if now-last <= 60 && last != 0 || !s.crossProtocolLogged.CompareAndSwap(last, now) {
		return
	}
	s.cfg.Logger.Warn(crossProtocolLog, "addr", sess.addr)
}
