// Package luacmsgpack is lua-cmsgpack 0.4.0 ("cmsgpack") as Redis 7.0
// bundles it, for gopher-lua: MessagePack pack/unpack with its choices of
// array or map, integer or float encodings, and its error texts.
package luacmsgpack

import (
	lua "github.com/yuin/gopher-lua"
)

// maxNesting is LUACMSGPACK_MAX_NESTING: deeper tables pack as nil, which
// also stops cycles.
const maxNesting = 16

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK, the limit luaL_checkstack
// enforces while unpacking many or deeply nested values.
const luaMaxCStack = 8000

// Load builds the cmsgpack module table.
func Load(L *lua.LState) *lua.LTable {
	mod := L.NewTable()
	mod.RawSetString("pack", L.NewFunction(pack))
	mod.RawSetString("unpack", L.NewFunction(unpack))
	mod.RawSetString("unpack_one", L.NewFunction(unpackOne))
	mod.RawSetString("unpack_limit", L.NewFunction(unpackLimit))
	mod.RawSetString("_NAME", lua.LString("cmsgpack"))
	mod.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	mod.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	mod.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return mod
}
