package scripts

import lua "github.com/yuin/gopher-lua"

// Module is a library table placed in every script's globals under Name,
// as Redis provides cjson, cmsgpack, bit and struct.
type Module struct {
	Name string
	Load func(L *lua.LState) *lua.LTable
}

// Modules lists the libraries scripts see. The integrator adds the cjson,
// cmsgpack, bit and struct loaders here.
var Modules = []Module{}
