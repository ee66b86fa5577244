package scripts

import (
	"github.com/qlessd/qlessd/scripts/luabit"
	"github.com/qlessd/qlessd/scripts/luacjson"
	"github.com/qlessd/qlessd/scripts/luacmsgpack"
	"github.com/qlessd/qlessd/scripts/luastruct"
	lua "github.com/yuin/gopher-lua"
)

// Module is a library table placed in every script's globals under Name,
// as Redis provides cjson, cmsgpack, bit and struct.
type Module struct {
	Name string
	Load func(L *lua.LState) *lua.LTable
}

// Modules lists the libraries scripts see.
var Modules = []Module{
	{"cjson", luacjson.Load},
	{"bit", luabit.Load},
	{"cmsgpack", luacmsgpack.Load},
	{"struct", luastruct.Load},
}
