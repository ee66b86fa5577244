package clua

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// ToNumber is lua_tonumber: numbers, and strings that convert wholly.
func ToNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return Str2d(string(x))
	}
	return 0, false
}

// ToInteger converts as lua_number2integer does on x86-64: truncation,
// with out-of-range values and NaN giving the "integer indefinite" value.
func ToInteger(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// ToInt32 converts a double to a C int as x86-64 cvttsd2si does.
func ToInt32(f float64) int32 {
	if math.IsNaN(f) || f >= 2147483648.0 || f <= -2147483649.0 {
		return math.MinInt32
	}
	return int32(f)
}

// CheckNumber is luaL_checknumber.
func CheckNumber(L *lua.LState, n int) float64 {
	f, ok := ToNumber(L.Get(n))
	if !ok {
		TypeError(L, n, "number")
	}
	return f
}

// CheckInteger is luaL_checkinteger (a 64-bit lua_Integer).
func CheckInteger(L *lua.LState, n int) int64 {
	return ToInteger(CheckNumber(L, n))
}

// OptInteger is luaL_optinteger.
func OptInteger(L *lua.LState, n int, def int64) int64 {
	if v := L.Get(n); v == lua.LNil {
		return def
	}
	return CheckInteger(L, n)
}

// CheckString is luaL_checklstring: strings, and numbers formatted
// with Lua 5.1's "%.14g".
func CheckString(L *lua.LState, n int) string {
	s, ok := ToString(L.Get(n))
	if !ok {
		TypeError(L, n, "string")
	}
	return s
}

// ToString is lua_tolstring.
func ToString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return FormatG(float64(x), 14), true
	}
	return "", false
}
