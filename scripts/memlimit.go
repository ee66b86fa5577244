package scripts

import (
	"errors"
	"runtime"
	"runtime/metrics"

	lua "github.com/yuin/gopher-lua"
)

// errNoMemory is Lua's message for an allocation that failed; Redis 7.0
// replies "ERR Error running script <sha>, not enough memory" when a
// script's allocation fails, and pcall catches it as this text.
const errNoMemory = "not enough memory"

var errOutOfMemory = errors.New(errNoMemory)

// memGuard keeps one script call under lua-max-memory. gopher-lua
// allocates from Go's heap and cannot say what a script holds, so the guard
// measures the heap: built-ins declare large allocations before making them
// (limits.Grow), and the interpreter's check of the kill switch measures
// every tickEvery instructions, which covers what the VM allocates itself
// (table growth, closures). The ceiling counts from the heap in use when
// the call starts, garbage included: a script may hold what the collector
// was about to free on top of its ceiling, so the heap never passes what it
// was at the start by more than the ceiling. A measurement over the ceiling
// is confirmed by a collection before it counts; after one that found the script under its ceiling, the next
// comes only once the heap has grown by another half of it, so a script
// holding close to its ceiling while it makes garbage does not collect at
// every measurement (the ceiling is kept to within half again). Other
// scripts running at the same moment, rare as clients wait for a running
// script, count against it too.
type memGuard struct {
	limit     int64 // bytes; 0 for none (library calls)
	base      int64 // the heap in use when the call started
	pending   int64 // bytes granted since the last measurement
	confirmAt int64 // heap in use above which a measurement collects first
	// refused: an allocation was refused (a catchable error, as in Lua);
	// stopped: the script held more than its ceiling and is being ended.
	refused, stopped bool
}

func newMemGuard(limit int64) memGuard {
	g := memGuard{limit: limit}
	if limit > 0 {
		g.base = heapInUse()
	}
	return g
}

// grow reports whether n more bytes keep the call under its ceiling. It
// measures once the bytes granted since the last measurement pass a
// sixteenth of the ceiling.
func (g *memGuard) grow(n int64) bool {
	if g.limit <= 0 {
		return true
	}
	if n > g.limit {
		return false
	}
	g.pending += n
	return g.pending < g.limit/16 || g.fits(n)
}

// fits measures the heap and reports whether it, plus n bytes about to be
// allocated, is within the ceiling of what it was when the call started.
func (g *memGuard) fits(n int64) bool {
	g.pending = 0
	h := heapInUse()
	if h+n-g.base <= g.limit || h < g.confirmAt {
		return true
	}
	runtime.GC()
	h = heapInUse()
	g.confirmAt = h + g.limit/2
	return h+n-g.base <= g.limit
}

// heapInUse is the bytes of heap objects, live or not yet swept: about a
// microsecond to read.
func heapInUse() int64 {
	s := [1]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	return int64(s[0].Value.Uint64())
}

// tickEvery is how many instructions run between measurements from the
// kill switch: about a millisecond of Lua.
const tickEvery = 1 << 16

// check is the kill switch's measurement every tickEvery instructions;
// false once the script has gone over its ceiling.
func (g *memGuard) check() bool {
	if g.stopped {
		return false
	}
	if g.limit <= 0 || g.fits(0) {
		return true
	}
	g.stopped = true
	return false
}

// Grow is limits.Limits's: it raises Lua's "not enough memory" when n more
// bytes would take the script past its ceiling.
func (k *killSwitch) Grow(L *lua.LState, n int) {
	if !k.mem.grow(int64(n)) {
		k.mem.refused = true
		L.Error(lua.LString(errNoMemory), 0)
	}
}

// outOfMemory reports whether obj, a script's error, comes from its memory
// ceiling: the script was stopped, or an allocation refused and its error
// not caught.
func (k *killSwitch) outOfMemory(obj lua.LValue) bool {
	return k.mem.stopped || (k.mem.refused && obj == lua.LString(errNoMemory))
}
