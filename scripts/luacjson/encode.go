package luacjson

import (
	"math"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack refuses to grow
// a C function's stack beyond it, which caps nesting when the configured
// depth limit is raised.
const luaMaxCStack = 8000

// maxOutput caps the encoded text. Beyond it lua-cjson's buffer growth
// would fail in Redis too; here it keeps one script from exhausting the
// server's memory with, say, a huge padded sparse array.
const maxOutput = 1 << 30

// escapes is lua-cjson's char2escape table: control bytes, DEL, '"', '\\'
// and '/' are escaped; every other byte, UTF-8 included, passes through.
var escapes [256]string

func init() {
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		escapes[c] = "\\u00" + string(hex[c>>4]) + string(hex[c&15])
	}
	escapes['\b'] = "\\b"
	escapes['\t'] = "\\t"
	escapes['\n'] = "\\n"
	escapes['\f'] = "\\f"
	escapes['\r'] = "\\r"
	escapes['"'] = "\\\""
	escapes['\\'] = "\\\\"
	escapes['/'] = "\\/"
	escapes[0x7f] = "\\u007f"
}

type encoder struct {
	L   *lua.LState
	cfg *config
	buf []byte
	// stack counts the Lua stack slots json_encode would hold at this
	// point, for the lua_checkstack emulation.
	stack int
	// values counts the values written, to poll SCRIPT KILL every so many
	values int
	// declared is how much of buf counts against the memory ceiling
	declared int
}

func (c *config) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		clua.ArgError(L, 1, "expected 1 argument")
	}
	// One encoder and its buffer serve every call of this module: a state
	// runs one script at a time and encoding calls no Lua code, so calls
	// never overlap. A raised error leaves them to the next call to reset.
	e := &c.enc
	*e = encoder{L: L, cfg: c, stack: 1, buf: e.buf[:0]}
	e.value(L.Get(1), 0)
	L.Push(lua.LString(e.buf))
	if cap(e.buf) > maxKeptBuffer {
		e.buf = nil
	}
	e.L = nil
	return 1
}

// maxKeptBuffer bounds the encoding buffer kept between calls.
const maxKeptBuffer = 64 << 10

// fail raises "Cannot serialise <type>: <reason>".
func (e *encoder) fail(v lua.LValue, reason string) {
	clua.Raise(e.L, "Cannot serialise %s: %s", clua.TypeName(v), reason)
}

func (e *encoder) value(v lua.LValue, depth int) {
	if e.values++; e.values%limits.Every == 0 {
		limits.Poll(e.L)
		e.declare()
	}
	switch x := v.(type) {
	case lua.LString:
		e.str(string(x))
	case lua.LNumber:
		e.number(x)
	case lua.LBool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		depth++
		if int64(depth) > int64(e.cfg.encodeMaxDepth) || e.stack+3 > luaMaxCStack {
			clua.Raise(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLength(x); n > 0 {
			e.array(x, n, depth)
		} else {
			e.object(x, depth)
		}
	default:
		if v == Null {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.fail(v, "type not supported")
	}
}

func (e *encoder) number(n lua.LNumber) {
	f := float64(n)
	switch e.cfg.encodeInvalid {
	case 0:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			e.fail(n, "must not be NaN or Inf")
		}
	case 1:
		// Printed as "nan" whatever the sign, as some libcs say "-nan".
		if math.IsNaN(f) {
			e.buf = append(e.buf, "nan"...)
			return
		}
	default:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			e.buf = append(e.buf, "null"...)
			return
		}
	}
	e.buf = clua.AppendG(e.buf, f, int(e.cfg.precision))
}

func (e *encoder) str(s string) {
	if len(s) > declareStep {
		e.declare()
		limits.Grow(e.L, len(s))
	}
	e.buf = AppendString(e.buf, s)
}

// declareStep is how much a string may add to the text before it is
// declared to the script's memory ceiling on its own.
const declareStep = 64 << 10

// declare counts the text written since the last call against the
// script's memory ceiling (limits.Grow).
func (e *encoder) declare() {
	limits.Grow(e.L, len(e.buf)-e.declared)
	e.declared = len(e.buf)
}

// arrayLength mirrors lua_array_length: the largest key when every key is
// a positive integer and the table is not excessively sparse, else -1 (or
// 0 for an empty table, which encodes as an object). The largest key is
// kept in a C int, so keys beyond its range wrap as x86 converts them.
func (e *encoder) arrayLength(t *lua.LTable) int {
	var max, items int32
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f == 0 || math.Floor(f) != f || !(f >= 1) {
			return -1
		}
		if f > float64(max) {
			max = clua.ToInt32(f)
		}
		items++
	}
	c := e.cfg
	if c.sparseRatio > 0 && max > items*c.sparseRatio && max > c.sparseSafe {
		if !c.sparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

func (e *encoder) array(t *lua.LTable, n int, depth int) {
	e.buf = append(e.buf, '[')
	e.stack++
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		if len(e.buf) > maxOutput {
			clua.Raise(e.L, "not enough memory")
		}
		// RawGetInt reads the array part without boxing i; RawGet also
		// finds integer keys gopher-lua keeps in the hash part.
		v := t.RawGetInt(i)
		if v == lua.LNil {
			v = t.RawGet(lua.LNumber(i))
		}
		e.value(v, depth)
	}
	e.stack--
	e.buf = append(e.buf, ']')
}

func (e *encoder) object(t *lua.LTable, depth int) {
	e.buf = append(e.buf, '{')
	e.stack += 2
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		switch key := k.(type) {
		case lua.LNumber:
			e.buf = append(e.buf, '"')
			e.number(key)
			e.buf = append(e.buf, '"', ':')
		case lua.LString:
			e.str(string(key))
			e.buf = append(e.buf, ':')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(v, depth)
	}
	e.stack -= 2
	e.buf = append(e.buf, '}')
}
