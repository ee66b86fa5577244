package server

import (
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// ScriptEngine is what the server asks of the script engine
// (scripts.Engine), given to New; nil when no command runs scripts.
type ScriptEngine interface {
	// Busy reports the oldest running script: done is closed when it ends
	// (nil when none runs), busyAt is when it passes lua-time-limit.
	Busy() (done <-chan struct{}, busyAt time.Time)
	// Announce registers a script command before it takes the store lock
	// and returns what to call once it is over, or nil when it registered
	// nothing (a library's call, watched while it runs instead:
	// scripts/longcall.go).
	Announce(sha []byte) (release func())
	// IsLibraryCall tells which EVALSHA digests call a library. Such calls
	// are not announced, nor stepped away for in advance: they run as
	// QLESS does, and once one is past lua-time-limit it says so
	// (StepAside), so that others get BUSY.
	IsLibraryCall(sha []byte) bool
	// SetTimeLimit and SetMaxMemory apply CONFIG SET lua-time-limit and
	// lua-max-memory.
	SetTimeLimit(time.Duration)
	SetMaxMemory(int64)
}

// runsLong reports whether a command runs a script that is announced and
// stepped away for in advance: any but a library's call.
func (s *Server) runsLong(cmd *commands.Cmd, args [][]byte) bool {
	return commands.RunsScript(cmd) && !(s.scripts != nil && s.scripts.IsLibraryCall(commands.ScriptSHA(cmd, args)))
}

// announceScript tells the engine a script command is about to run, waits
// for the commands that passed their busy check before it (scriptgate.go),
// and returns what to call once it is over (a no-op for other commands).
func (s *Server) announceScript(sess *session, cmd *commands.Cmd, args [][]byte, pass *gatePass) (release func()) {
	if s.scripts == nil || !s.runsScript(sess, cmd) {
		return func() {}
	}
	release = s.scripts.Announce(commands.ScriptSHA(cmd, args))
	if release == nil {
		return func() {}
	}
	s.gate.drain(pass)
	return release
}

// runsScript reports whether cmd runs a script: a script command, or EXEC
// of a transaction that queued one that may run past lua-time-limit
// (which holds the store as long).
func (s *Server) runsScript(sess *session, cmd *commands.Cmd) bool {
	if commands.RunsScript(cmd) {
		return true
	}
	if cmd.Flags&commands.RunsQueued == 0 || sess.multi == nil {
		return false
	}
	for _, q := range sess.multi.cmds {
		if s.runsLong(q.cmd, q.args) {
			return true
		}
	}
	return false
}

// announceBatch announces a script for a whole event-loop batch, before it
// takes the store lock: the scripts in it run under that lock, where the
// gate could not be drained (what it waits for may wait on the lock). It
// returns what to call once the batch has run.
func (s *Server) announceBatch() (release func()) {
	if s.scripts == nil {
		return func() {}
	}
	release = s.scripts.Announce(nil)
	if release == nil {
		return func() {}
	}
	s.gate.drain(&gatePass{})
	return release
}

// refuseBusy makes a command that arrives while a script runs behave as on
// Redis, whose single thread serves nobody during a script: it waits until
// the script ends, or writes BUSY (and returns true) once the script has
// run past its time limit. SCRIPT KILL and SHUTDOWN NOSAVE pass at once.
// Without this a client would wait on the store lock, possibly forever.
//
// The command enters the gate (scriptgate.go) before it looks, and is out
// of it while it waits, so that a script never waits for a command that
// waits for that script.
func (s *Server) refuseBusy(cmd *commands.Cmd, args [][]byte, w resp.Writer, pass *gatePass) bool {
	if s.scripts == nil || commands.AllowedWhileBusy(cmd, args) {
		return false
	}
	for {
		*pass = s.gate.enter()
		done, busyAt := s.scripts.Busy()
		if done == nil {
			return false
		}
		pass.leave()
		if !endsBy(done, busyAt) {
			if _, at := s.scripts.Busy(); !at.IsZero() && time.Now().Before(at) {
				continue // the clock restarted: the next script of a batch or EXEC
			}
			w.WriteError(commands.ErrBusy)
			return true
		}
		if commands.RunsScript(cmd) {
			// Scripts that waited for one go on together, as before the
			// gate: looking again would run them strictly one after
			// another, each behind the last one's commit (and fsync).
			*pass = s.gate.enter()
			return false
		}
		// Look again: another script may have been announced meanwhile.
	}
}

// endsBy waits for done until deadline and reports whether it closed.
func endsBy(done <-chan struct{}, deadline time.Time) bool {
	if wait := time.Until(deadline); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-done:
			return true
		case <-t.C:
		}
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}
