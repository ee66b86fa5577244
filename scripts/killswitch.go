package scripts

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/scripts/internal/limits"
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
//
// The same check keeps the script under its memory ceiling (memlimit.go):
// Done counts instructions and has the guard measure every so many; a
// script over it is ended the way a killed one is.
type killSwitch struct {
	flags atomic.Uint32 // flagKilled, flagPrompted
	mem   memGuard
	ticks uint32 // instructions to the next tick; the script's goroutine alone uses it
	chain int64  // bytes of the ".." chain being evaluated (concat.go)
}

var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

const (
	flagKilled   = 1 << iota // SCRIPT KILL tripped the switch
	flagPrompted             // a garbage collection asks for a measurement (gcwatch.go)
)

func (k *killSwitch) trip()        { k.flags.Or(flagKilled) }
func (k *killSwitch) killed() bool { return k.flags.Load()&flagKilled != 0 }

// Poll is limits.Limits's: library functions written in Go call it while
// they work, as gopher-lua checks the switch only between instructions.
// The error's text does not matter: a killed script's reply says so.
func (k *killSwitch) Poll(L *lua.LState) {
	if pollHook != nil {
		pollHook(k)
	}
	if k.killed() {
		L.RaiseError(errScriptKilled)
	}
	if k.mem.stopped {
		L.Error(lua.LString(errNoMemory), 0)
	}
}

// pollHook, when set (by tests), runs at every Poll.
var pollHook func(k *killSwitch)

func (k *killSwitch) Deadline() (time.Time, bool) { return time.Time{}, false }
func (k *killSwitch) Value(any) any               { return nil }

func (k *killSwitch) Done() <-chan struct{} {
	if k.ticks--; k.ticks == 0 || k.flags.Load() != 0 {
		return k.tick()
	}
	return nil
}

// arm readies the switch for a script with a memory ceiling of limit;
// disarm is called when it ends.
func (k *killSwitch) arm(limit int64) {
	k.mem, k.ticks = newMemGuard(limit), tickEvery
	if limit > 0 {
		watch(k)
	}
}

func (k *killSwitch) disarm() {
	if k.mem.limit > 0 {
		unwatch(k)
	}
}

// tick is Done every tickEvery instructions, and after a garbage
// collection: the memory ceiling's check. A killed script, or one over its
// ceiling, gets here at every instruction after.
func (k *killSwitch) tick() <-chan struct{} {
	k.ticks = tickEvery
	if k.flags.Load()&flagPrompted != 0 {
		k.flags.And(^uint32(flagPrompted))
	}
	if k.killed() || !k.mem.check() {
		k.ticks = 1
		return closedDone
	}
	return nil
}

func (k *killSwitch) Err() error {
	if k.killed() {
		return context.Canceled
	}
	if k.mem.stopped {
		return errOutOfMemory
	}
	return nil
}

// underSwitch puts a new thread under the running script's kill switch; a
// library call runs without one, and so do its threads.
func (s *state) underSwitch(th *lua.LState) {
	if s.cur != nil && !s.lib {
		th.SetContext(&s.cur.stop)
	}
}

// A new thread gets its creator's options, and with a state's (a call
// stack of callStackSize frames and registrySize value slots, allocated up
// front) a coroutine took some 150 KB: 1e5 of them passed 6 GB. Threads are
// made with a call stack that grows as it is used and a registry that
// starts small, and each counts against the script's memory ceiling.
const (
	threadRegistrySize = 64
	threadRegistryStep = 256
	// threadBytes is about what a new thread takes (TestThreadBytes).
	threadBytes = 6 << 10
)

// newThread runs coroutine.create or coroutine.wrap (make) with the
// options of a small thread.
func newThread(L *lua.LState, make lua.LGFunction) int {
	limits.Grow(L, threadBytes)
	saved := L.Options
	defer func() { L.Options = saved }()
	L.Options.MinimizeStackMemory = true
	L.Options.RegistrySize = threadRegistrySize
	L.Options.RegistryGrowStep = threadRegistryStep
	return make(L)
}
