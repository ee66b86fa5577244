package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// SetBusyCheck installs the test for "a script has run past
// lua-time-limit"; while it holds, other clients get BUSY as in Redis.
// Call it before Start.
func (s *Server) SetBusyCheck(f func() bool) { s.busyCheck = f }

// refuseBusy writes BUSY and returns true when a script is running past its
// time limit and cmd is not one Redis lets through (SCRIPT KILL, SHUTDOWN
// NOSAVE). Without the check, clients would just wait for the store lock.
func (s *Server) refuseBusy(cmd *commands.Cmd, args [][]byte, w resp.Writer) bool {
	if s.busyCheck == nil || commands.AllowedWhileBusy(cmd, args) || !s.busyCheck() {
		return false
	}
	w.WriteError(commands.ErrBusy)
	return true
}
