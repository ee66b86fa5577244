package qless

import (
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// The hottest API calls (put, pop, complete, heartbeat) run in Go when the
// call is an ordinary one: no Lua VM, no redis.call conversions, inside the
// serialized write transaction where every microsecond is paid by every
// client. The Lua library stays the definition: a fast path does the same
// store operations in the same order, replies and publishes the same bytes,
// and hands anything else (an error to raise, a rare option, an odd stored
// value) to the Lua before it has written anything. TestFastPathsMatchLua
// runs random call sequences both ways and compares replies, events and the
// whole keyspace.

// fastPath runs one API call. It returns false, having written nothing to
// the store or the reply, when the Lua must run the call instead.
type fastPath func(f *fastCall, args [][]byte) bool

// fastPaths maps API function names to their Go paths, as the functions
// table (functions.go) gives them.
var fastPaths map[string]fastPath

// fastOff turns the fast paths off, for tests that compare them with Lua.
var fastOff atomic.Bool

// fastTaken, when set (by tests), hears of each call a fast path ran.
var fastTaken func(fn string)

// fastCall is one API call on its way through a fast path.
type fastCall struct {
	c   *commands.Ctx
	w   resp.Writer // where the reply goes
	tx  *store.Tx
	now float64
	// switches: what the build being served does (profiles.go)
	switches int
	// historyLimit is max-job-history once read (0: not yet).
	historyLimit float64
	num          []byte // scratch for number arguments
	json         []byte // scratch for normalized job data
	// watch tracks a call that runs long for BUSY and SCRIPT KILL
	// (scripts/longcall.go); halted: SCRIPT KILL stopped the call, whose
	// reply is written.
	watch  scripts.GoCall
	halted bool
}

// fastCalls recycles fastCall values with their scratch: one escaped to
// the heap per command, as the path is called through a map.
var fastCalls = sync.Pool{New: func() any { return new(fastCall) }}

// runFast runs call (function, now, args...) through its fast path, as a
// build with the given switches would, and reports whether it did; e
// watches it while it runs.
func runFast(c *commands.Ctx, w resp.Writer, call [][]byte, switches int, e *scripts.Engine) bool {
	if len(call) < 2 || fastOff.Load() {
		return false
	}
	fn := fastPaths[string(call[0])]
	if fn == nil {
		return false
	}
	now, ok := plainNumber(call[1])
	if !ok {
		return false
	}
	f := fastCalls.Get().(*fastCall)
	*f = fastCall{c: c, w: w, tx: c.Tx, now: now, switches: switches, num: f.num[:0], json: f.json[:0]}
	aside, _ := c.Sess.(scripts.Asider)
	f.watch = e.WatchGo(aside, c.Started())
	done := fn(f, call[2:]) || f.halted
	f.watch.End()
	*f = fastCall{num: f.num[:0], json: f.json[:0]}
	fastCalls.Put(f)
	if !done {
		return false
	}
	if fastTaken != nil {
		fastTaken(string(call[0]))
	}
	return true
}

// stopped is a loop point of a fast path's checks: it reports whether
// SCRIPT KILL stopped the call, having written its reply; the path then
// returns false, as the call is over.
func (f *fastCall) stopped() bool {
	if !f.watch.Poll() {
		return false
	}
	f.halt()
	return true
}

// stoppedAfter is stopped after going through a text of n bytes in one go.
func (f *fastCall) stoppedAfter(n int) bool {
	if !f.watch.Work(n >> 12) {
		return false
	}
	f.halt()
	return true
}

// writing is called where a fast path's writes begin: false when SCRIPT
// KILL stopped the call first (as stopped).
func (f *fastCall) writing() bool {
	if f.watch.Write() {
		return true
	}
	f.halt()
	return false
}

// tick is a loop point among a fast path's writes, where it can no longer
// be stopped.
func (f *fastCall) tick() { f.watch.Poll() }

func (f *fastCall) halt() {
	f.halted = true
	f.w.WriteError(scripts.ErrKilled)
}

// plainNumber parses text Lua's tonumber reads as the same float64 that
// strconv does: optional '-', digits, optional '.' and digits, optional
// exponent (what %.17g writes). Anything else (spaces, hex, inf, a leading
// '.') is left to the Lua.
func plainNumber(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 40 {
		return 0, false
	}
	i := 0
	if b[0] == '-' {
		i++
	}
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		frac := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			frac++
		}
		if frac == 0 {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			i++
		}
		exp := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 || exp > 3 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) || (v == 0 && hasNonZeroDigit(b)) {
		return 0, false
	}
	return v, true
}

// hasNonZeroDigit tells an underflow (1e-400) from a written zero.
func hasNonZeroDigit(b []byte) bool {
	for _, c := range b {
		if c == 'e' || c == 'E' {
			return false
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

// plainString is plainNumber for a stored value.
func plainString(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 40 {
		return 0, false
	}
	var buf [40]byte
	return plainNumber(append(buf[:0], s...))
}

// number renders f as redis.call passes a Lua number: the returned string
// is a copy the store may keep.
func (f *fastCall) number(v float64) string {
	f.num = scripts.AppendArgNumber(f.num[:0], v)
	// Not strings.Clone: a conversion whose string stays in the caller
	// is built on its stack.
	return string(f.num)
}

// numberView is number as a view of the scratch, valid until the next
// number: for a store call that copies what it keeps (HSet).
func (f *fastCall) numberView(v float64) string {
	f.num = scripts.AppendArgNumber(f.num[:0], v)
	return view(f.num)
}

// view is b as a string without a copy: b must not change while the
// string is in use.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// reply writes a bulk string reply.
func (f *fastCall) reply(s string) { f.w.WriteBulkString(s) }

// luaNumber is a number as Lua's .. operator writes it.
func luaNumber(v float64) string { return scripts.FormatNumber(v) }
