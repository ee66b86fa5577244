package scripts

import (
	"github.com/qlessd/qlessd/scripts/internal/clua"
	lua "github.com/yuin/gopher-lua"
)

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack refuses to let
// a C function's stack (its arguments and what it pushes) pass it. unpack
// and string.byte check it before pushing their results; gopher-lua's push
// anything up to its registry's limit, growing it a step at a time, so
// unpack({}, 1, 1e8) ran for 25 s before failing.
const luaMaxCStack = 8000

// baseUnpack is Lua 5.1's unpack: int bounds (luaL_optint), and "too many
// results to unpack" past the stack limit.
func baseUnpack(L *lua.LState) int {
	tb, ok := L.Get(1).(*lua.LTable)
	if !ok {
		clua.TypeError(L, 1, "table")
	}
	i := int32(clua.OptInteger(L, 2, 1))
	e := int32(tb.Len())
	if L.Get(3) != lua.LNil {
		e = int32(clua.CheckInteger(L, 3))
	}
	if i > e {
		return 0
	}
	n := e - i + 1 // wraps as the C int does
	if n <= 0 || int64(L.GetTop())+int64(n) > luaMaxCStack {
		clua.Raise(L, "too many results to unpack")
	}
	for k := i; ; k++ {
		L.Push(tb.RawGetInt(int(k)))
		if k == e {
			break
		}
	}
	return int(n)
}

// strByte is Lua 5.1's string.byte: the end defaults to the start, and a
// slice past the stack limit is "string slice too long".
func strByte(L *lua.LState) int {
	s := clua.CheckString(L, 1)
	l := int64(len(s))
	posi := posRelative(clua.OptInteger(L, 2, 1), l)
	pose := posRelative(clua.OptInteger(L, 3, posi), l)
	if posi <= 0 {
		posi = 1
	}
	if pose > l {
		pose = l
	}
	if posi > pose {
		return 0
	}
	n := pose - posi + 1
	if int64(L.GetTop())+n > luaMaxCStack {
		clua.Raise(L, "stack overflow (string slice too long)")
	}
	for i := posi; i <= pose; i++ {
		L.Push(lua.LNumber(s[i-1]))
	}
	return int(n)
}

// posRelative is posrelat: negative positions count from the end.
func posRelative(pos, l int64) int64 {
	if pos >= 0 {
		return pos
	}
	return l + pos + 1
}
