// Package luabit is LuaBitOp 1.0 ("bit") as Redis 7.0 bundles it, for
// gopher-lua: 32-bit operations on Lua numbers with its normalisation.
package luabit

import (
	"math"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	lua "github.com/yuin/gopher-lua"
)

// Load builds the bit module table.
func Load(L *lua.LState) *lua.LTable {
	mod := L.NewTable()
	for _, f := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{"tobit", tobit}, {"bnot", bnot}, {"band", fold(func(a, b uint32) uint32 { return a & b })},
		{"bor", fold(func(a, b uint32) uint32 { return a | b })},
		{"bxor", fold(func(a, b uint32) uint32 { return a ^ b })},
		{"lshift", shift(func(b, n uint32) uint32 { return b << n })},
		{"rshift", shift(func(b, n uint32) uint32 { return b >> n })},
		{"arshift", shift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) })},
		{"rol", shift(func(b, n uint32) uint32 { return b<<n | b>>(32-n) })},
		{"ror", shift(func(b, n uint32) uint32 { return b<<(32-n) | b>>n })},
		{"bswap", bswap}, {"tohex", tohex},
	} {
		mod.RawSetString(f.name, L.NewFunction(f.fn))
	}
	return mod
}

// arg converts argument i as LuaBitOp's barg: add 2^52+2^51 so the FPU
// rounds to an integer in the low mantissa bits, and keep those 32 bits.
// Non-numbers convert to 0, which is an error unless the value really is
// a number (Lua 5.1 build).
func arg(L *lua.LState, i int) uint32 {
	f, ok := clua.ToNumber(L.Get(i))
	var b uint32
	if !math.IsNaN(f) {
		b = uint32(math.Float64bits(f + 6755399441055744.0))
	}
	if b == 0 && !ok {
		clua.TypeError(L, i, "number")
	}
	return b
}

func ret(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func tobit(L *lua.LState) int { return ret(L, arg(L, 1)) }
func bnot(L *lua.LState) int  { return ret(L, ^arg(L, 1)) }

func fold(op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := arg(L, 1)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, arg(L, i))
		}
		return ret(L, b)
	}
}

func shift(op func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := arg(L, 1)
		n := arg(L, 2) & 31
		return ret(L, op(b, n))
	}
}

func bswap(L *lua.LState) int {
	b := arg(L, 1)
	return ret(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
}

func tohex(L *lua.LState) int {
	b := arg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(arg(L, 2))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		// C negates INT_MIN to itself and then asks for a huge string.
		if n == math.MinInt32 {
			clua.Raise(L, "not enough memory")
		}
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
