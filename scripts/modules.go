package scripts

import (
	"github.com/qlessd/qlessd/scripts/luabit"
	"github.com/qlessd/qlessd/scripts/luacjson"
	"github.com/qlessd/qlessd/scripts/luacmsgpack"
	"github.com/qlessd/qlessd/scripts/luastruct"
	lua "github.com/yuin/gopher-lua"
)

// Module is a library table placed in every script's globals under Name,
// as Redis provides cjson, cmsgpack, bit and struct. Load returns, for a
// module with settings, a function that puts them back to their defaults;
// the engine calls it after every call.
type Module struct {
	Name string
	Load func(L *lua.LState) (mod *lua.LTable, reset func())
}

// Modules lists the libraries scripts see.
var Modules = []Module{
	{"cjson", luacjson.LoadResettable},
	{"bit", noSettings(luabit.Load)},
	{"cmsgpack", noSettings(luacmsgpack.Load)},
	{"struct", noSettings(luastruct.Load)},
}

func noSettings(load func(L *lua.LState) *lua.LTable) func(L *lua.LState) (*lua.LTable, func()) {
	return func(L *lua.LState) (*lua.LTable, func()) { return load(L), nil }
}
