package server

import (
	"time"

	"github.com/qlessd/qlessd/commands"
)

// The loop runs scripts itself, as Redis's thread does: handing each one to
// a goroutine of its own cost a fifth to a half of qless.lua's throughput
// in wake-ups. While a script runs the loop serves nobody else, which is
// Redis's behaviour too, up to lua-time-limit; past it Redis answers the
// other clients BUSY and still takes SCRIPT KILL. Here a stand-in does
// that: a goroutine that, once a script is past the limit, takes the
// loop's connections over (the own lock), reads them and answers, until
// the loop is back and takes them again. The loop steps away so whenever
// it may wait on a script: while it runs one, and while its batch waits
// for the store, which a script elsewhere (another loop, a connection
// that left the loop) may hold.

// stepAway lets a stand-in serve the loop's connections from when a script
// runs past its limit; on, when not nil, is the connection the loop is
// busy with, which the stand-in leaves alone. The loop's goroutine then
// touches nothing of the loop's but on until stepBack. It is on every
// batch's path, so it allocates nothing: one timer per loop, reset.
func (lp *eventLoop) stepAway(on *loopConn) {
	s := lp.s
	busyAt := time.Time{}
	if s.scripts != nil {
		_, busyAt = s.scripts.Busy()
	}
	if busyAt.IsZero() {
		// Nothing announced yet: what will run gets the whole limit.
		limit := s.luaLimits.timeLimit()
		if limit <= 0 {
			limit = noTimeLimit
		}
		busyAt = time.Now().Add(limit)
	}
	lp.scriptsOn = on
	lp.isAway.Store(true)
	lp.standDone.Add(1)
	lp.standBy.Reset(time.Until(busyAt))
	lp.own.Unlock()
}

// noTimeLimit stands for "never" as a deadline: lua-time-limit 0 is no
// limit, on Redis and in the engine, and the others wait.
const noTimeLimit = 100 * 365 * 24 * time.Hour

// stepBack takes the loop's connections back from the stand-in, if one
// came.
func (lp *eventLoop) stepBack() {
	lp.isAway.Store(false)
	if lp.standing.Load() {
		lp.mu.Lock()
		lp.p.wake()
		lp.mu.Unlock()
	}
	lp.own.Lock()
	if lp.standBy.Stop() {
		lp.standDone.Done() // no stand-in this time
	} else {
		// The stand-in started: let it see the loop is back.
		lp.own.Unlock()
		lp.standDone.Wait()
		lp.own.Lock()
	}
	lp.scriptsOn = nil
}

// runNext runs lc's next command, a script with a stand-in ready; any
// other steps away only if it turns out to be a library call past the time
// limit (stepAside).
func (lp *eventLoop) runNext(lc *loopConn) {
	lp.runningOn = lc
	if lc.cmds[0].script {
		lp.stepAway(lc)
		lp.runOne(lc)
		lp.stepBack()
	} else {
		lp.runOne(lc)
	}
	lp.runningOn = nil
	if lp.aside {
		lp.aside = false
		lp.stepBack()
	}
}

// StepAside implements scripts.Asider: a library call that the session's
// command runs (QLESS, EVALSHA of a qless script served natively) is past
// lua-time-limit. Such calls are not stepped away for in advance, as
// scripts are, which would cost every short one; the loop steps away now,
// so that a stand-in answers its other connections BUSY, as for a script.
// A connection served by a goroutine of its own needs nothing: the others
// are served by their own goroutines or loops, which see the call running.
func (s *session) StepAside() {
	if s.own != nil || s.lc == nil {
		return
	}
	s.lc.lp.stepAside(s.lc)
}

// stepAside steps away for lc's running command, unless the loop is away
// already (or is not running lc's command: a stand-in's run).
func (lp *eventLoop) stepAside(lc *loopConn) {
	if lp.isAway.Load() || lp.runningOn != lc {
		return
	}
	lp.stepAway(lc)
	lp.aside = true
}

// standIn serves the loop's connections while the loop is away.
func (lp *eventLoop) standIn() {
	defer lp.standDone.Done()
	lp.own.Lock()
	defer lp.own.Unlock()
	lp.standing.Store(true)
	defer lp.standing.Store(false)
	defer func() {
		// A wake the stand-in took may have been for the loop.
		lp.mu.Lock()
		if len(lp.incoming) > 0 || len(lp.killed) > 0 || lp.stopping {
			lp.p.wake()
		}
		lp.mu.Unlock()
	}()
	var ready []readyEvent
	for lp.isAway.Load() {
		lp.mu.Lock()
		incoming := lp.incoming
		lp.incoming = nil
		lp.mu.Unlock()
		lp.register(incoming)
		// The turn's connections may hold commands read with the script's:
		// no event will come for those.
		for _, lc := range lp.turn {
			if lc.runnable() && !lc.gone {
				lp.standInFor(lc, readyEvent{})
			}
		}
		var err error
		ready, err = lp.p.wait(ready[:0], 100)
		if err != nil {
			time.Sleep(time.Millisecond)
		}
		for _, ev := range ready {
			if lc := lp.conns[ev.id]; lc != nil && !lc.gone {
				lp.standInFor(lc, ev)
			}
		}
	}
}

// standInFor serves one connection for the stand-in. A connection in the
// loop's turn that holds replies for the turn's commit keeps the stand-in's
// answers behind them, for the loop to send; every other gets them now.
func (lp *eventLoop) standInFor(lc *loopConn, ev readyEvent) {
	if lc == lp.scriptsOn {
		lp.unwatch(lc) // its next commands wait for its script
		return
	}
	held := lc.inTurn && len(lc.out.b) > lc.sent
	if ev.writable && !held {
		lp.flush(lc)
	}
	if ev.readable {
		lp.read(lc)
	}
	lp.answerBusy(lc)
	if !held {
		lp.flush(lc)
	}
	if lc.inTurn {
		// The loop ends the turn with it; until then the poller would
		// report an ended or full one on every wait.
		if lc.closing || lc.dead || lc.watching&watchOut != 0 {
			lp.unwatch(lc)
		}
		return
	}
	switch {
	case lc.dead:
		lp.closeConn(lc)
	case len(lc.cmds) > 0 && lc.cmds[0].cmd != nil && commands.AllowedWhileBusy(lc.cmds[0].cmd, lc.cmds[0].args):
		// MULTI, WATCH...: allowed now, on Redis, but not here; a
		// goroutine of its own serves the connection from now on.
		lp.graduate(lc)
	case len(lc.cmds) > 0:
		lp.join(lc) // the script is not past its limit after all
	case lc.closing && !lc.owes():
		lp.closeConn(lc)
	default:
		lc.endTurn()
	}
}

// unwatch stops watching lc until its next flush.
func (lp *eventLoop) unwatch(lc *loopConn) {
	if lc.watching != 0 && lp.p.watch(lc.fd, lc.id, lc.watching, 0) == nil {
		lc.watching = 0
	}
}

// answerBusy runs lc's commands while a script is past its time limit:
// BUSY for most, as on Redis.
func (lp *eventLoop) answerBusy(lc *loopConn) {
	if lp.s.scripts == nil {
		return
	}
	for lc.runnable() {
		rc := lc.cmds[0]
		if rc.fail == nil {
			done, busyAt := lp.s.scripts.Busy()
			if done == nil || time.Now().Before(busyAt) {
				return
			}
			// The commands allowed past lua-time-limit that the stand-in
			// does not answer (MULTI, WATCH...) change how the connection is
			// served or read the store, which the script holds: they wait
			// for the loop.
			if rc.cmd != nil && commands.AllowedWhileBusy(rc.cmd, rc.args) && rc.cmd.Flags&commands.StandInAnswers == 0 {
				return
			}
		}
		lp.runOne(lc)
	}
}
