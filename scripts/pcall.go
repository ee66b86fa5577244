package scripts

import lua "github.com/yuin/gopher-lua"

// Lua 5.1 names the operand of a runtime error a pcall or xpcall catches
// too. The name can only be read while the erroring frame is on gopher-lua's
// call stack, which is gone by the time pcall returns, and gopher-lua runs
// nothing there but an xpcall handler. So both call their function through
// namedCall, which hooks gopher-lua's Panic: it runs as an error is raised,
// before the stack unwinds, and there the message is reworded and the
// operand named. Neither adds an error function where there was none, so
// gopher-lua's handling of the frames' upvalues stays as it was.

// namedCall calls its first argument with the others, with the hook set.
// It only ever runs as the function a PCall calls, and PCall sets Panic to
// gopher-lua's own panicWithoutTraceback for its extent, which the hook
// calls on; the first call keeps it (one hook serves every thread, as
// Panic receives the thread raising) and PCall restores what it found.
func (s *state) namedCall(L *lua.LState) int {
	if s.raisePanic == nil {
		next := L.Panic
		s.raisePanic = func(L *lua.LState) {
			s.renameRaised(L)
			next(L)
		}
	}
	L.Panic = s.raisePanic
	L.Call(L.GetTop()-1, lua.MultRet)
	return L.GetTop()
}

// renameRaised rewords the error being raised, on top of the stack, while
// the frame raising it is the current one.
func (s *state) renameRaised(L *lua.LState) {
	m, ok := L.Get(-1).(lua.LString)
	if !ok {
		return
	}
	dbg, ok := L.GetStack(0)
	if !ok {
		return
	}
	text := luaMessage(string(m))
	if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil && dbg.What != "G" {
		text = s.vmErrorText(L, dbg, string(m))
	}
	L.Replace(-1, lua.LString(text))
}

// pcall is Redis 7.0's pcall: Lua 5.1's, except that a caught {err=...}
// table from redis.call comes back as its text; messages read as Lua's.
func (s *state) pcall(L *lua.LState) int {
	L.CheckAny(1)
	if v := L.Get(1); v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	n := L.GetTop()
	L.Insert(s.namedCallFn, 1)
	if err := L.PCall(n, lua.MultRet, nil); err != nil {
		L.Push(lua.LFalse)
		switch e := errObject(err).(type) {
		case *lua.LTable:
			if msg, ok := e.RawGetString("err").(lua.LString); ok {
				L.Push(msg)
			} else {
				L.Push(e)
			}
		case lua.LString:
			L.Push(lua.LString(luaMessage(string(e))))
		default:
			L.Push(e)
		}
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// xpcall is Lua 5.1's xpcall(f, handler), with the error the handler
// receives reworded as Lua words it.
func (s *state) xpcall(L *lua.LState) int {
	fn := L.CheckFunction(1)
	handler := L.CheckFunction(2)
	top := L.GetTop()
	L.Push(s.namedCallFn)
	L.Push(fn)
	if err := L.PCall(1, lua.MultRet, handler); err != nil {
		L.Push(lua.LFalse)
		L.Push(errObject(err))
		return 2
	}
	L.Insert(lua.LTrue, top+1)
	return L.GetTop() - top
}

// errObject is the value a failed PCall raised.
func errObject(err error) lua.LValue {
	if ae, ok := err.(*lua.ApiError); ok {
		return ae.Object
	}
	return lua.LString(err.Error())
}
