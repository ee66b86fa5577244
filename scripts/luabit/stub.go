package luabit

import lua "github.com/yuin/gopher-lua"

func Load(L *lua.LState) *lua.LTable { return L.NewTable() }
