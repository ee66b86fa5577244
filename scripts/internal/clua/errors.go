package clua

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Where returns luaL_where(L, 1): "source:line: " of the function that
// called the running Go function, or "" when that caller is not a Lua
// function (pcall, for example), exactly as Lua 5.1 does for C functions.
func Where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, nil); err != nil {
		return ""
	}
	if dbg.CurrentLine > 0 {
		return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
	}
	return ""
}

// Raise raises an error as luaL_error does from a C function.
func Raise(L *lua.LState, format string, args ...interface{}) {
	L.Error(lua.LString(Where(L)+fmt.Sprintf(format, args...)), 0)
}

// FuncName is the name Lua 5.1 reports for the running function in
// argument errors: the name it was called by from Lua code, else "?".
func FuncName(L *lua.LState) string {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("n", dbg, nil); err != nil {
		return "?"
	}
	name := dbg.Name
	if name == "" || name == "(anonymous)" || strings.HasPrefix(name, "<") {
		return "?"
	}
	return name
}

// ArgError raises luaL_argerror's "bad argument #n to 'f' (msg)".
func ArgError(L *lua.LState, narg int, msg string) {
	Raise(L, "bad argument #%d to '%s' (%s)", narg, FuncName(L), msg)
}

// TypeError raises luaL_typerror's "<tname> expected, got <type>".
func TypeError(L *lua.LState, narg int, tname string) {
	ArgError(L, narg, tname+" expected, got "+ArgTypeName(L, narg))
}

// ArgTypeName is luaL_typename for argument n, "no value" when absent.
func ArgTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return TypeName(L.Get(n))
}

// TypeName is lua_typename of a value's type in Lua 5.1 spelling.
func TypeName(v lua.LValue) string {
	switch v.Type() {
	case lua.LTNil:
		return "nil"
	case lua.LTBool:
		return "boolean"
	case lua.LTNumber:
		return "number"
	case lua.LTString:
		return "string"
	case lua.LTTable:
		return "table"
	case lua.LTFunction:
		return "function"
	case lua.LTUserData:
		return "userdata"
	case lua.LTThread:
		return "thread"
	}
	return v.Type().String()
}
