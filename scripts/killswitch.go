package scripts

import (
	"context"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// killSwitch is the context a script runs under, which SCRIPT KILL
// trips. gopher-lua reads the context's Done channel before every
// instruction; a context.WithCancel context makes that a method call, an
// atomic load and a channel receive each time, 7-10% of a stock qless-core
// call (BenchmarkStock*). Until the switch trips, Done is nil, which the
// receive skips at once; then it is a closed channel, so the next
// instruction raises "context canceled".
//
// A coroutine's thread gets a child context from gopher-lua
// (context.WithCancel of ours), which would never be cancelled since ours
// has no channel until then: installCoroutine hands each new thread the
// switch itself, so a script spinning inside a coroutine is killed too.
type killSwitch struct{ tripped atomic.Bool }

var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (k *killSwitch) trip() { k.tripped.Store(true) }

// Poll is limits.Limits's: library functions written in Go call it while
// they work, as gopher-lua checks the switch only between instructions.
// The error's text does not matter: a killed script's reply says so.
func (k *killSwitch) Poll(L *lua.LState) {
	if pollHook != nil {
		pollHook(k)
	}
	if k.tripped.Load() {
		L.RaiseError(errScriptKilled)
	}
}

// pollHook, when set (by tests), runs at every Poll.
var pollHook func(k *killSwitch)

func (k *killSwitch) Deadline() (time.Time, bool) { return time.Time{}, false }
func (k *killSwitch) Value(any) any               { return nil }

func (k *killSwitch) Done() <-chan struct{} {
	if k.tripped.Load() {
		return closedDone
	}
	return nil
}

func (k *killSwitch) Err() error {
	if k.tripped.Load() {
		return context.Canceled
	}
	return nil
}

// installCoroutine wraps coroutine.create and coroutine.wrap so that the
// threads they make run under the calling script's kill switch. The
// originals run in the wrapper's own call frame, so their argument errors
// read as before.
func (s *state) installCoroutine(co *lua.LTable) {
	create := co.RawGetString("create").(*lua.LFunction).GFunction
	wrap := co.RawGetString("wrap").(*lua.LFunction).GFunction
	co.RawSetString("create", s.L.NewFunction(func(L *lua.LState) int {
		n := create(L)
		if th, ok := L.Get(-1).(*lua.LState); ok {
			s.underSwitch(th)
		}
		return n
	}))
	co.RawSetString("wrap", s.L.NewFunction(func(L *lua.LState) int {
		n := wrap(L)
		if fn, ok := L.Get(-1).(*lua.LFunction); ok && len(fn.Upvalues) > 0 {
			if th, ok := fn.Upvalues[0].Value().(*lua.LState); ok {
				s.underSwitch(th)
			}
		}
		return n
	}))
}

// underSwitch puts a new thread under the running script's kill switch; a
// library call runs without one, and so do its threads.
func (s *state) underSwitch(th *lua.LState) {
	if s.cur != nil && !s.lib {
		th.SetContext(&s.cur.stop)
	}
}
