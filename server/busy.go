package server

import (
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// BusyFunc reports the oldest running script: done is closed when it ends
// (nil when none runs), busyAt is when it passes lua-time-limit.
type BusyFunc func() (done <-chan struct{}, busyAt time.Time)

// SetBusyCheck installs the script engine's BusyFunc and its Announce,
// which registers a script command before it takes the store lock. Call it
// before Start.
func (s *Server) SetBusyCheck(f BusyFunc, announce func(sha []byte) (release func())) {
	s.busyCheck, s.announce = f, announce
}

// announceScript tells the engine a script command is about to run and
// returns what to call once it is over (a no-op for other commands).
func (s *Server) announceScript(cmd *commands.Cmd, args [][]byte) (release func()) {
	if s.announce == nil || !commands.RunsScript(cmd) {
		return func() {}
	}
	return s.announce(commands.ScriptSHA(cmd, args))
}

// refuseBusy makes a command that arrives while a script runs behave as on
// Redis, whose single thread serves nobody during a script: it waits until
// the script ends, or writes BUSY (and returns true) once the script has
// run past its time limit. SCRIPT KILL and SHUTDOWN NOSAVE pass at once.
// Without this a client would wait on the store lock, possibly forever.
func (s *Server) refuseBusy(cmd *commands.Cmd, args [][]byte, w resp.Writer) bool {
	if s.busyCheck == nil || commands.AllowedWhileBusy(cmd, args) {
		return false
	}
	done, busyAt := s.busyCheck()
	if done == nil {
		return false
	}
	if wait := time.Until(busyAt); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-done:
			return false
		case <-t.C:
		}
	}
	select {
	case <-done:
		return false
	default:
	}
	w.WriteError(commands.ErrBusy)
	return true
}
