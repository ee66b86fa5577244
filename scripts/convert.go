package scripts

import (
	"math"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// luaWriter is the resp.Writer redis.call hands to a command: it builds the
// Lua value of the reply directly, from RESP2 or, after redis.setresp(3),
// from RESP3, as Redis 7.0 converts either (resp3_lua.go).
type luaWriter struct {
	L      *lua.LState
	result lua.LValue
	isErr  bool // the top-level reply is an error
	done   bool
	r3     bool
	stack  []luaFrame
	bytes  int // about what the reply's Lua values take
}

// luaFrame is a table being filled: an array's, or in RESP3 a map's or a
// set's inner table.
type luaFrame struct {
	t      *lua.LTable
	left   int
	kind   byte // '*' array, '%' map, '~' set
	idx    int  // array: the last index written
	key    lua.LValue
	hasKey bool
}

func (w *luaWriter) reset(L *lua.LState, resp3 bool) {
	w.L, w.result, w.isErr, w.done, w.r3, w.stack, w.bytes = L, lua.LNil, false, false, resp3, w.stack[:0], 0
}

func (w *luaWriter) put(v lua.LValue, isErr bool) {
	w.bytes += replyValueBytes
	if s, ok := v.(lua.LString); ok {
		w.bytes += len(s)
	}
	if len(w.stack) == 0 {
		if w.done {
			return // a second top-level reply is a handler bug; keep the first
		}
		w.result, w.isErr, w.done = v, isErr, true
		return
	}
	top := &w.stack[len(w.stack)-1]
	top.add(v)
	top.left--
	for len(w.stack) > 0 && w.stack[len(w.stack)-1].left == 0 {
		w.stack = w.stack[:len(w.stack)-1]
	}
}

func (w *luaWriter) errTable(msg string) *lua.LTable {
	t := w.L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(msg))
	return t
}

func (w *luaWriter) WriteError(msg string) { w.put(w.errTable(msg), true) }
func (w *luaWriter) WriteStatus(s string) {
	t := w.L.CreateTable(0, 1)
	if s == "OK" {
		t.RawSetString("ok", statusOK)
	} else {
		t.RawSetString("ok", lua.LString(s))
	}
	w.put(t, false)
}
func (w *luaWriter) WriteBulk(b []byte)       { w.put(lua.LString(b), false) }
func (w *luaWriter) WriteBulkString(s string) { w.put(lua.LString(s), false) }
func (w *luaWriter) WriteInt(n int64)         { w.put(luaInt(n), false) }
func (w *luaWriter) WriteNull()               { w.put(w.null(), false) }
func (w *luaWriter) WriteNullArray()          { w.put(w.null(), false) }
func (w *luaWriter) WriteArray(n int) {
	if n < 0 {
		w.put(w.null(), false)
		return
	}
	t := w.L.CreateTable(n, 0)
	w.put(t, false)
	if n > 0 {
		w.stack = append(w.stack, luaFrame{t: t, left: n, kind: '*'})
	}
}

// null is a null reply in Lua: false from RESP2, nil from RESP3.
func (w *luaWriter) null() lua.LValue {
	if w.r3 {
		return lua.LNil
	}
	return lua.LFalse
}

// add puts v in the frame's table: the next index of an array (a nil
// leaves a hole, as lua_settable does), a map's key or value, a set's
// member.
func (f *luaFrame) add(v lua.LValue) {
	switch f.kind {
	case '%':
		if !f.hasKey {
			f.key, f.hasKey = v, true
			return
		}
		if f.key != lua.LNil {
			f.t.RawSet(f.key, v)
		}
		f.key, f.hasKey = nil, false
	case '~':
		if v != lua.LNil {
			f.t.RawSet(v, lua.LTrue)
		}
	default:
		f.idx++
		if v != lua.LNil {
			f.t.RawSetInt(f.idx, v)
		}
	}
}

// Lua values are immutable, so the common ones are boxed once: converting
// a number or string to lua.LValue allocates.
var (
	statusOK     lua.LValue = lua.LString("OK")
	smallNumbers            = func() (t [1024]lua.LValue) {
		for i := range t {
			t[i] = lua.LNumber(i)
		}
		return t
	}()
)

// luaInt is n as a Lua number, boxed ahead of time when small.
func luaInt(n int64) lua.LValue {
	if n >= 0 && n < int64(len(smallNumbers)) {
		return smallNumbers[n]
	}
	return lua.LNumber(n)
}

// maxReplyDepth stands in for the Lua stack check that makes Redis answer
// "reached lua stack limit" for deeply nested or self-containing tables.
const maxReplyDepth = 1000

const errStackLimit = "ERR reached lua stack limit"

// replyCheck walks a call's result before it is written: the whole reply
// is an error when the result nests deeper than Redis's Lua stack allows,
// and a script's reply counts against its memory ceiling (max bytes, 0 for
// none), so that tables sharing subtables cannot make an endless reply.
// The walk checks for SCRIPT KILL as it goes.
type replyCheck struct {
	max, size int64
	values    int
	killed    func() bool
}

type replyVerdict int

const (
	replyOK replyVerdict = iota
	replyTooDeep
	replyTooBig
	replyKilled
)

// replyValueBytes is what a value costs besides its text: its RESP header,
// and the Go values it passes through on its way out.
const replyValueBytes = 16

func (c *replyCheck) walk(v lua.LValue, depth int) replyVerdict {
	if c.values++; c.values%4096 == 0 && c.killed() {
		return replyKilled
	}
	c.size += replyValueBytes
	if s, ok := v.(lua.LString); ok {
		c.size += int64(len(s))
	}
	if c.max > 0 && c.size > c.max {
		return replyTooBig
	}
	x, ok := v.(*lua.LTable)
	if !ok {
		return replyOK
	}
	if depth >= maxReplyDepth {
		return replyTooDeep
	}
	if _, ok := replySpecial(x); ok {
		return replyOK
	}
	if m, ok := replyMapOrSet(x); ok {
		verdict := replyOK
		m.ForEach(func(k, v lua.LValue) {
			if verdict == replyOK {
				verdict = c.walk(k, depth+1)
			}
			if verdict == replyOK {
				verdict = c.walk(v, depth+1)
			}
		})
		return verdict
	}
	for i := 1; ; i++ {
		e := x.RawGetInt(i)
		if e == lua.LNil {
			return replyOK
		}
		if r := c.walk(e, depth+1); r != replyOK {
			return r
		}
	}
}

// replySpecial is the reply of a table that stands for one ({err=...},
// {ok=...}, {double=...}), or false for an array.
func replySpecial(x *lua.LTable) (resp.Value, bool) {
	if e, ok := x.RawGetString("err").(lua.LString); ok {
		return resp.Value{Kind: resp.Error, Str: errorReplyText(string(e))}, true
	}
	if s, ok := x.RawGetString("ok").(lua.LString); ok {
		return resp.Value{Kind: resp.Status, Str: lineSafe(string(s))}, true
	}
	if d, ok := x.RawGetString("double").(lua.LNumber); ok {
		return resp.Value{Kind: resp.Double, Str: fmtDoubleReply(float64(d)), Float: float64(d)}, true
	}
	if s, ok := x.RawGetString("big_number").(lua.LString); ok {
		return resp.Value{Kind: resp.BigNum, Str: lineSafe(string(s))}, true
	}
	if v, ok := x.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, okf := v.RawGetString("format").(lua.LString)
		s, oks := v.RawGetString("string").(lua.LString)
		if okf && oks {
			ext := string(format)
			if ext == "" {
				ext = "   " // Redis pads a short format with blanks
			}
			return resp.Value{Kind: resp.Verbatim, Str: string(s), Ext: ext}, true
		}
	}
	return resp.Value{}, false
}

// replyMapOrSet is the table of a {map=...} or {set=...} result.
func replyMapOrSet(x *lua.LTable) (*lua.LTable, bool) {
	if m, ok := x.RawGetString("map").(*lua.LTable); ok {
		return m, true
	}
	m, ok := x.RawGetString("set").(*lua.LTable)
	return m, ok
}

// writeMapOrSet writes {map=...} as a map of its keys and values, or
// {set=...} as a set of its keys; w spells either in its protocol.
func writeMapOrSet(w resp.Writer, x *lua.LTable, r3 bool) bool {
	isMap := true
	m, ok := x.RawGetString("map").(*lua.LTable)
	if !ok {
		if m, ok = x.RawGetString("set").(*lua.LTable); !ok {
			return false
		}
		isMap = false
	}
	n := 0
	m.ForEach(func(lua.LValue, lua.LValue) { n++ })
	if isMap {
		w.WriteMap(n)
	} else {
		w.WriteSet(n)
	}
	m.ForEach(func(k, v lua.LValue) {
		writeReply(w, k, r3)
		if isMap {
			writeReply(w, v, r3)
		}
	})
	return true
}

// writeReply writes a result replyCheck passed as Redis 7.0 converts it
// (tables with map, set or double fields in the caller's protocol), straight
// to w.
//
// r3: the script called redis.setresp(3), so a boolean is RESP3's boolean
// (1 or 0 to a RESP2 caller) rather than 1 or null.
func writeReply(w resp.Writer, v lua.LValue, r3 bool) {
	switch x := v.(type) {
	case lua.LString:
		w.WriteBulkString(string(x))
	case lua.LBool:
		switch {
		case r3:
			w.WriteBool(bool(x))
		case bool(x):
			w.WriteInt(1)
		default:
			w.WriteNull()
		}
	case lua.LNumber:
		w.WriteInt(luaToInt64(float64(x)))
	case *lua.LTable:
		if r, ok := replySpecial(x); ok {
			r.WriteTo(w)
			return
		}
		if writeMapOrSet(w, x, r3) {
			return
		}
		n := 0
		for x.RawGetInt(n+1) != lua.LNil {
			n++
		}
		w.WriteArray(n)
		for i := 1; i <= n; i++ {
			writeReply(w, x.RawGetInt(i), r3)
		}
	default:
		w.WriteNull()
	}
}

// luaToInt64 is C's (long long) cast of a double on x86-64: truncation,
// with NaN and out-of-range values giving LLONG_MIN.
func luaToInt64(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775807.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// errorReplyText is how Redis writes {err=...}: the text goes out as the
// whole error line, so its first word is the error code.
func errorReplyText(s string) string {
	return lineSafe(s)
}

// lineSafe replaces CR and LF, which would break a RESP line, with spaces.
func lineSafe(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] == '\r' || b[j] == '\n' {
					b[j] = ' '
				}
			}
			return string(b)
		}
	}
	return s
}

// fmtDoubleReply is addReplyDouble in RESP2: a bulk string with %.17g.
func fmtDoubleReply(f float64) string { return fmtArgNumber(f) }
