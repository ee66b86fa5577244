package scripts

import (
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua mishandles the upvalues of frames an error unwinds. Its
// LState.Error and RaiseError close the open upvalues of every Lua frame on
// the thread (closeAllUpvalues), not only of the frames being unwound,
// unless the thread's hasErrorFunc is set; PCall sets that flag when given
// an error function and clears it when it returns, whatever it was before.
// A script runs under the engine's PCall with an error function, so the
// first error a pcall catches closes nothing (and frames it unwinds keep
// upvalues open on registers PCall then clears); once one pcall has
// returned the flag is off, and the next error closes the upvalues of the
// script's own frames too: a closure's `x` is detached from the local `x`
// it shares in Lua (`pcall(error,'a') pcall(error,'b') inc() return x`).
//
// pcall and xpcall therefore run their function on a helper thread of
// their own (pcallthread.go), whose flag is never set: an error raised
// there closes the upvalues of that thread's frames, exactly those the
// error unwinds, and cannot reach the caller's. Lua 5.1's error
// handler runs at the error point; xpcall's runs once the error has
// unwound, which a script cannot tell apart without the debug library.

// namedCall calls its first argument with the others, with the hook set.
// Lua 5.1 names the operand of a runtime error a pcall or xpcall catches
// too. The name can only be read while the erroring frame is on gopher-lua's
// call stack, which is gone by the time PCall returns. So the function runs
// through namedCall, which hooks gopher-lua's Panic: it runs as an error is
// raised, before the stack unwinds, and there the message is reworded and
// the operand named.
//
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
	text := string(m)
	own := m == s.ownText
	s.ownText = ""
	fn, _ := L.GetInfo("f", dbg, lua.LNil)
	switch {
	case isLuaFunction(fn):
		text = s.vmErrorText(L, dbg, text)
	case !own && !isLuaFrame(L, 1):
		text = luaMessage(raisedFromC(L, text))
	default:
		text = luaMessage(text)
	}
	L.Replace(-1, lua.LString(text))
}

// isLuaFrame reports whether the function level calls up runs Lua code.
// (Debug.What says "main" for the bottom frame of any thread, a helper's
// namedCall included.)
func isLuaFrame(L *lua.LState, level int) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	fn, err := L.GetInfo("f", dbg, lua.LNil)
	return err == nil && isLuaFunction(fn)
}

func isLuaFunction(v lua.LValue) bool {
	fn, ok := v.(*lua.LFunction)
	return ok && !fn.IsG
}

var reArgName = regexp.MustCompile(`^bad argument #(\d+) to (?:\(anonymous\)|'[^']*'|[\w.:]+) \(`)

// raisedFromC is Lua's text for an error a Go function called from Go
// (pcall, most often) raises with gopher-lua's RaiseError: Lua's luaL_error
// adds no position there and luaL_argerror names the function '?', where
// RaiseError prefixes the position of the nearest Lua frame below, and a
// space even when there is none.
func raisedFromC(L *lua.LState, text string) string {
	pos := ""
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if fn, err := L.GetInfo("Slf", dbg, lua.LNil); err == nil && isLuaFunction(fn) {
			pos = dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ":"
			break
		}
	}
	text = strings.TrimPrefix(text, pos+" ")
	return reArgName.ReplaceAllString(text, "bad argument #$1 to '?' (")
}

// pcall is Redis 7.0's pcall: Lua 5.1's, except that a caught table error
// comes back as its err field when that is a string (redis.call's errors
// come back as their text); messages read as Lua's.
//
// Redis's pcall skips Lua's argument check: called with nothing, it calls a
// boolean (the slot above the result placeholder it pushes), and that
// error is what it returns.
func (s *state) pcall(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.Push(lua.LTrue)
	}
	if msg := s.callLimit(); msg != "" {
		return pcallFailed(L, lua.LString(msg))
	}
	if msg := notCallable(L, L.Get(1)); msg != "" {
		return pcallFailed(L, lua.LString(msg))
	}
	s.ccalls++
	defer func() { s.ccalls-- }()
	if err := s.protected(L, L.GetTop()); err != nil {
		return s.pcallError(L, errObject(err))
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// pcallError is what pcall returns for a caught error e. Redis reads the
// err field of a table with lua_getfield, so __index runs (and an error it
// raises is pcall's own), and a field that is no string is left on the
// stack: pcall then returns false, the table and that value.
func (s *state) pcallError(L *lua.LState, e lua.LValue) int {
	L.SetTop(0)
	L.Push(lua.LFalse)
	switch x := e.(type) {
	case *lua.LTable:
		switch msg := L.GetField(x, "err").(type) {
		case lua.LString, lua.LNumber:
			L.Push(msg)
		default:
			L.Push(x)
			L.Push(msg)
		}
	case lua.LString:
		L.Push(lua.LString(luaMessage(string(x))))
	default:
		L.Push(e)
	}
	return L.GetTop()
}

func pcallFailed(L *lua.LState, e lua.LValue) int {
	L.SetTop(0)
	L.Push(lua.LFalse)
	L.Push(e)
	return 2
}

// notCallable is the error Lua raises calling v, "" if v can be called.
func notCallable(L *lua.LState, v lua.LValue) string {
	if v.Type() == lua.LTFunction || L.GetMetaField(v, "__call").Type() == lua.LTFunction {
		return ""
	}
	return "attempt to call a " + v.Type().String() + " value"
}

// xpcall is Lua 5.1's xpcall(f, handler): f is called without arguments,
// and an error it raises goes through handler, whose result is returned
// after false. A handler that is no function, or that keeps failing, ends
// in "error in error handling", as in Lua.
func (s *state) xpcall(L *lua.LState) int {
	L.CheckAny(2)
	L.SetTop(2)
	fn, handler := L.Get(1), L.Get(2)
	L.SetTop(0)
	var obj lua.LValue
	switch msg := s.callLimit(); {
	case msg == errErrHandling:
		return pcallFailed(L, lua.LString(msg))
	case msg != "":
		obj = lua.LString(msg)
	case notCallable(L, fn) != "":
		obj = lua.LString(notCallable(L, fn))
	default:
		s.ccalls++
		L.Push(fn)
		err := s.protected(L, 1)
		s.ccalls--
		if err == nil {
			L.Insert(lua.LTrue, 1)
			return L.GetTop()
		}
		obj = errObject(err)
	}
	return pcallFailed(L, s.handle(L, handler, obj))
}

// handle runs xpcall's handler on error obj as Lua 5.1 does. Each call of
// the handler is one C call deeper than the error it handles; an error in
// the handler is handled again, one deeper still, so a handler that always
// fails runs until Lua's C-call limit (with "C stack overflow" as the error
// it gets there) and then gives way to "error in error handling".
func (s *state) handle(L *lua.LState, handler, obj lua.LValue) lua.LValue {
	saved := s.ccalls
	defer func() { s.ccalls = saved }()
	for depth := saved + 2; ; {
		if handler.Type() != lua.LTFunction {
			return lua.LString(errErrHandling)
		}
		depth++
		switch callCheck(depth) {
		case errErrHandling:
			return lua.LString(errErrHandling)
		case errCStack:
			obj = lua.LString(errCStack)
			continue
		}
		s.ccalls = depth - 1
		L.Push(handler)
		L.Push(obj)
		err := s.protected(L, 2)
		if err == nil {
			v := L.Get(1)
			L.SetTop(0)
			return v
		}
		obj = errObject(err)
	}
}

// errObject is the value a failed PCall raised.
func errObject(err error) lua.LValue {
	if ae, ok := err.(*lua.ApiError); ok {
		return ae.Object
	}
	return lua.LString(err.Error())
}
