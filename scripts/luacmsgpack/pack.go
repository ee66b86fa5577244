package luacmsgpack

import (
	"encoding/binary"
	"math"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// Packing counts against the script's memory ceiling: strings by length,
// tableBytes for each table (shared ones repeat in the output) and
// valueBytes for each member, at most what a number or a header takes.
const (
	tableBytes = 64
	valueBytes = 9
)

func pack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		clua.ArgError(L, 0, "MessagePack pack needs input.")
	}
	// lua_checkstack(L, nargs) on top of the nargs arguments themselves.
	if 2*n > luaMaxCStack {
		clua.ArgError(L, 0, "Too many arguments for MessagePack pack.")
	}
	var buf []byte
	for i := 1; i <= n; i++ {
		buf = encodeValue(L, buf, L.Get(i), 0)
	}
	L.Push(lua.LString(buf))
	return 1
}

func encodeValue(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		limits.Grow(L, len(x))
		return appendBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		return appendNumber(b, float64(x))
	case *lua.LTable:
		if level == maxNesting {
			return append(b, 0xc0)
		}
		// Tables shared by reference can make the output far larger
		// than the input: SCRIPT KILL is polled at every table, and
		// each counts against the script's memory ceiling.
		limits.Poll(L)
		limits.Grow(L, tableBytes)
		if n, ok := arrayLen(x); ok {
			b = appendHeader(b, 0x90, 0xdc, 0xdd, uint64(n))
			for j := 1; j <= n; j++ {
				if j%limits.Every == 0 {
					limits.Poll(L)
					limits.Grow(L, limits.Every*valueBytes)
				}
				b = encodeValue(L, b, L.GetTable(x, lua.LNumber(j)), level+1)
			}
			return b
		}
		count := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			count++
		}
		b = appendHeader(b, 0x80, 0xde, 0xdf, uint64(count))
		j := 0
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			if j++; j%limits.Every == 0 {
				limits.Poll(L)
				limits.Grow(L, 2*limits.Every*valueBytes)
			}
			b = encodeValue(L, b, k, level+1)
			b = encodeValue(L, b, val, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// arrayLen mirrors table_is_an_array: only positive keys that fit a C int,
// and as many of them as the largest one (so no holes). The length is then
// what lua_objlen would report: that same count.
func arrayLen(t *lua.LTable) (int, bool) {
	var count, max int64
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f <= 0 || math.IsInf(f, 0) || float64(clua.ToInt32(f)) != f {
			return 0, false
		}
		if int64(f) > max {
			max = int64(f)
		}
		count++
	}
	return int(count), max == count
}

// appendNumber picks an integer encoding when the double converts to
// int64 and back unchanged, else float32 when that is exact, else double.
func appendNumber(b []byte, f float64) []byte {
	if !math.IsInf(f, 0) {
		if i := clua.ToInteger(f); float64(i) == f {
			return appendInt(b, i)
		}
	}
	if f32 := float32(f); float64(f32) == f {
		b = append(b, 0xca)
		return binary.BigEndian.AppendUint32(b, math.Float32bits(f32))
	}
	b = append(b, 0xcb)
	return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
}

func appendInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= 0xff:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

func appendBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

// appendHeader writes an array or map header: fix form up to 15, then
// the 16-bit, then the 32-bit form.
func appendHeader(b []byte, fix, b16, b32 byte, n uint64) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}
