package scripts

import (
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A library call (the qless library's Lua, or one of its paths in Go) is
// our own code and ends, but over large data it can run for seconds, and
// it holds the store as a script does. Past lua-time-limit it is treated as
// a script is: the other clients get BUSY, and SCRIPT KILL stops it while
// it has written nothing (UNKILLABLE after). It costs the common short call
// next to nothing: the Lua looks at the clock every libPollEvery commands
// it runs, and a call in Go is tracked only once it has run for trackAfter.
//
// What the loop serving the caller's connection must do to let others be
// answered (step away, server/loop_busy.go) it does when its host says so,
// at the first look past the limit.

// Asider is implemented by the host of a library call (the caller's
// session, through the script host) that must let other clients be
// answered once the call is past lua-time-limit. StepAside is called once,
// from the goroutine running the call.
type Asider interface{ StepAside() }

// ErrKilled is the reply of a library call SCRIPT KILL stopped.
const ErrKilled = "ERR " + errScriptKilled

// libPollEvery is how many redis.call of a library call pass between its
// looks at the clock: each runs a command, so a look costs little beside
// them.
const libPollEvery = 16

// pollLibrary runs at each redis.call of a library call: it raises the
// kill error once SCRIPT KILL has tripped the call's switch, and tells the
// host once the call is past the time limit.
func (s *state) pollLibrary(L *lua.LState) {
	r := s.cur
	if r.wasKilled() {
		L.RaiseError(errScriptKilled)
	}
	if r.polls++; r.aside || r.polls%libPollEvery != 0 {
		return
	}
	if time.Now().Before(r.e.busyAt(r.start)) {
		return
	}
	r.aside = true
	if a, ok := s.host.(Asider); ok {
		a.StepAside()
	}
}

// GoCall watches a library call served in Go (a fast path) for BUSY and
// SCRIPT KILL. The call polls it at its loop points and says when it
// writes; it is tracked as a running script once it has run for
// trackAfter, from its start. The zero GoCall watches nothing.
type GoCall struct {
	e       *Engine
	aside   Asider
	start   time.Time
	r       *run
	n, next int // work done, and at which the next look at the clock is
	wrote   bool
	stepped bool
}

// goPollEvery is how many loop points of a call in Go pass between its
// looks at the clock: each is a key or so read or written.
const goPollEvery = 64

// trackAfter is how long a call in Go runs before it is tracked (or the
// time limit, when shorter): commands arriving before that, and past the
// store lock's wait, wait for it to end instead of getting BUSY. Tracking
// every call would make other event loops see a script running at almost
// every turn, and run their commands one by one.
const trackAfter = time.Millisecond

// WatchGo starts watching a call in Go that started at start (the zero
// time: now); aside, when not nil, is told once the call is past the time
// limit. The caller's command has its start at hand: a clock reading costs
// a few percent of a short call on some virtual machines.
func (e *Engine) WatchGo(aside Asider, start time.Time) GoCall {
	if start.IsZero() {
		start = time.Now()
	}
	return GoCall{e: e, aside: aside, start: start, next: goPollEvery}
}

// Poll is a loop point: it reports whether SCRIPT KILL has stopped the
// call, which must then end without writing (it has written nothing: Kill
// answers UNKILLABLE once Write was called).
func (c *GoCall) Poll() (killed bool) { return c.Work(1) }

// Work is Poll after n units of work: a loop point is one, and a call that
// went through a long text in one go (decoding a huge job data) counts
// one for every 4 KB of it, so that it looks at the clock after it.
func (c *GoCall) Work(n int) (killed bool) {
	if c.e == nil {
		return false
	}
	if c.n += n; c.n < c.next {
		return c.r != nil && c.r.wasKilled()
	}
	c.next = c.n + goPollEvery
	return c.look()
}

func (c *GoCall) look() bool {
	now := time.Now()
	if c.r == nil {
		limit := time.Duration(c.e.limit.Load())
		if ran := now.Sub(c.start); ran < trackAfter && (limit <= 0 || ran < limit) {
			return false
		}
		c.r = c.e.beginAt(c.start)
		c.r.wrote = c.wrote
	}
	if !c.stepped && !now.Before(c.e.busyAt(c.start)) {
		c.stepped = true
		if c.aside != nil {
			c.aside.StepAside()
		}
	}
	return c.r.wasKilled()
}

// Write is called before the call's first write; false when SCRIPT KILL
// stopped it first (it must then end, having written nothing).
func (c *GoCall) Write() bool {
	c.wrote = true
	if c.r == nil {
		return true
	}
	return c.r.noteWrite()
}

// End stops watching the call.
func (c *GoCall) End() {
	if c.r != nil {
		c.e.end(c.r)
		c.r = nil
	}
}
