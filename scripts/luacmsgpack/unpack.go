package luacmsgpack

import (
	"encoding/binary"
	"math"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

type errKind int

const (
	errNone errKind = iota
	errEOF
	errBadFormat
)

type cursor struct {
	L    *lua.LState
	data string
	pos  int
	err  errKind
	// values counts the values read, to poll SCRIPT KILL every so many
	values int
}

// unpackedValueBytes is about what an unpacked value takes in a table.
const unpackedValueBytes = 48

func (c *cursor) left() int { return len(c.data) - c.pos }

// need reports whether n more bytes are there, recording EOF if not.
func (c *cursor) need(n uint64) bool {
	if uint64(c.left()) < n {
		c.err = errEOF
		return false
	}
	return true
}

func (c *cursor) checkStack(used int, what string) {
	if used+1 > luaMaxCStack {
		clua.Raise(c.L, "stack overflow (%s)", what)
	}
}

// decode reads one value; used is the number of Lua stack slots the C
// code would hold at this point. On error it returns nil with c.err set.
func (c *cursor) decode(used int) lua.LValue {
	if !c.need(1) {
		return lua.LNil
	}
	if c.values++; c.values%limits.Every == 0 {
		// A byte of input can unpack to a value taking dozens in a
		// table: count a generous size for each.
		limits.Poll(c.L)
		limits.Grow(c.L, limits.Every*unpackedValueBytes)
	}
	c.checkStack(used, "too many return values at once; use unpack_one or unpack_limit instead.")
	d := c.data[c.pos:]
	t := d[0]
	if v, ok := c.number(t, d); ok {
		return v
	}
	switch t {
	case 0xd9:
		if !c.need(2) {
			return lua.LNil
		}
		return c.str(2, uint64(d[1]))
	case 0xda:
		if !c.need(3) {
			return lua.LNil
		}
		return c.str(3, uint64(binary.BigEndian.Uint16([]byte(d[1:3]))))
	case 0xdb:
		if !c.need(5) {
			return lua.LNil
		}
		return c.str(5, uint64(binary.BigEndian.Uint32([]byte(d[1:5]))))
	case 0xdc, 0xde:
		if !c.need(3) {
			return lua.LNil
		}
		c.pos += 3
		return c.container(t == 0xde, uint64(binary.BigEndian.Uint16([]byte(d[1:3]))), used)
	case 0xdd, 0xdf:
		if !c.need(5) {
			return lua.LNil
		}
		c.pos += 5
		return c.container(t == 0xdf, uint64(binary.BigEndian.Uint32([]byte(d[1:5]))), used)
	}
	switch {
	case t&0x80 == 0:
		c.pos++
		return lua.LNumber(t)
	case t&0xe0 == 0xe0:
		c.pos++
		return lua.LNumber(int8(t))
	case t&0xe0 == 0xa0:
		return c.str(1, uint64(t&0x1f))
	case t&0xf0 == 0x90:
		c.pos++
		return c.container(false, uint64(t&0xf), used)
	case t&0xf0 == 0x80:
		c.pos++
		return c.container(true, uint64(t&0xf), used)
	}
	c.err = errBadFormat
	return lua.LNil
}

// scalarSize is the encoded size, type byte included, of each fixed-size
// scalar's type byte; 0 for the others.
var scalarSize = [256]uint8{0xcc: 2, 0xd0: 2, 0xcd: 3, 0xd1: 3, 0xce: 5, 0xd2: 5, 0xcf: 9, 0xd3: 9,
	0xc0: 1, 0xc2: 1, 0xc3: 1, 0xca: 5, 0xcb: 9}

// number reads the fixed-size scalars (integers, floats, nil, booleans)
// whose type byte is t at the head of d; ok is false for any other type.
// When the input ends inside one, it returns nil with c.err set.
func (c *cursor) number(t byte, d string) (v lua.LValue, ok bool) {
	size := int(scalarSize[t])
	if size == 0 {
		return nil, false
	}
	if !c.need(uint64(size)) {
		return lua.LNil, true
	}
	c.pos += size
	switch t {
	case 0xcc:
		return lua.LNumber(d[1]), true
	case 0xd0:
		return lua.LNumber(int8(d[1])), true
	case 0xcd:
		return lua.LNumber(binary.BigEndian.Uint16([]byte(d[1:3]))), true
	case 0xd1:
		return lua.LNumber(int16(binary.BigEndian.Uint16([]byte(d[1:3])))), true
	case 0xce:
		return lua.LNumber(binary.BigEndian.Uint32([]byte(d[1:5]))), true
	case 0xd2:
		return lua.LNumber(int32(binary.BigEndian.Uint32([]byte(d[1:5])))), true
	case 0xcf, 0xd3:
		// Both go through a signed 64-bit integer on their way to a double.
		return lua.LNumber(int64(binary.BigEndian.Uint64([]byte(d[1:9])))), true
	case 0xca:
		return lua.LNumber(math.Float32frombits(binary.BigEndian.Uint32([]byte(d[1:5])))), true
	case 0xcb:
		return lua.LNumber(math.Float64frombits(binary.BigEndian.Uint64([]byte(d[1:9])))), true
	case 0xc2, 0xc3:
		return lua.LBool(t == 0xc3), true
	}
	return lua.LNil, true
}

func (c *cursor) str(hdr int, n uint64) lua.LValue {
	c.pos += hdr
	if !c.need(n) {
		return lua.LNil
	}
	s := c.data[c.pos : c.pos+int(n)]
	c.pos += int(n)
	return lua.LString(s)
}

func (c *cursor) container(isMap bool, n uint64, used int) lua.LValue {
	t := c.L.NewTable()
	if !isMap {
		c.checkStack(used+1, "in function mp_decode_to_lua_array")
		for i := uint64(1); i <= n; i++ {
			v := c.decode(used + 2)
			if c.err != errNone {
				return t
			}
			if v != lua.LNil {
				t.RawSetInt(int(i), v)
			}
		}
		return t
	}
	top := 0.0 // the largest integer key set, up to which gopher-lua's array goes
	for i := uint64(0); i < n; i++ {
		k := c.decode(used + 1)
		if c.err != errNone {
			return t
		}
		v := c.decode(used + 2)
		if c.err != errNone {
			return t
		}
		// lua_settable refuses these keys; the error has no position
		// because it is raised while the C function is running.
		if k == lua.LNil {
			c.L.Error(lua.LString("table index is nil"), 0)
		}
		if f, ok := k.(lua.LNumber); ok && math.IsNaN(float64(f)) {
			c.L.Error(lua.LString("table index is NaN"), 0)
		}
		// gopher-lua fills its array part with nils up to an integer key:
		// a few bytes of input can ask for hundreds of megabytes.
		if f, ok := k.(lua.LNumber); ok && float64(f) > top && float64(f) < float64(lua.MaxArrayIndex) && f == lua.LNumber(math.Floor(float64(f))) {
			if float64(f) > top+1 {
				limits.Grow(c.L, int(16*(float64(f)-top)))
			}
			top = float64(f)
		}
		t.RawSet(k, v)
	}
	return t
}

func unpack(L *lua.LState) int {
	return unpackFull(L, 0, 0, L.GetTop())
}

func unpackOne(L *lua.LState) int {
	offset := clua.OptInteger(L, 2, 0)
	return unpackFull(L, 1, offset, 1)
}

func unpackLimit(L *lua.LState) int {
	limit := clua.CheckInteger(L, 2)
	offset := clua.OptInteger(L, 3, 0)
	return unpackFull(L, limit, offset, 1)
}

// unpackFull mirrors mp_unpack_full; used is the Lua stack size the C
// function starts decoding with.
func unpackFull(L *lua.LState, limit, offset int64, used int) int {
	s := clua.CheckString(L, 1)
	decodeAll := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		// The C code prints the input length where the limit belongs.
		clua.Raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	}
	if uint64(offset) > uint64(len(s)) {
		clua.Raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if decodeAll {
		limit = math.MaxInt32
	}
	c := &cursor{L: L, data: s, pos: int(offset)}
	var vals []lua.LValue
	for cnt := int64(0); c.left() > 0 && cnt < limit; cnt++ {
		v := c.decode(used + len(vals))
		switch c.err {
		case errEOF:
			clua.Raise(L, "Missing bytes in input.")
		case errBadFormat:
			clua.Raise(L, "Bad data format in input.")
		}
		vals = append(vals, v)
	}
	if !decodeAll {
		next := lua.LNumber(-1)
		if c.left() != 0 {
			next = lua.LNumber(c.pos)
		}
		L.Push(next)
	}
	for _, v := range vals {
		L.Push(v)
	}
	if decodeAll {
		return len(vals)
	}
	return len(vals) + 1
}
