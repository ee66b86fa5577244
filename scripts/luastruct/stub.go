package luastruct

import lua "github.com/yuin/gopher-lua"

func Load(L *lua.LState) *lua.LTable { return L.NewTable() }
