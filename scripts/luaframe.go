package scripts

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Naming the operand of a runtime error (varname.go) needs the erroring
// frame's program counter, which gopher-lua keeps in its unexported
// callFrame behind lua.Debug and offers no accessor for. These mirror the
// layout of gopher-lua v1.1.1 (go.mod pins it): Debug's first field is its
// *callFrame, whose fields are below. TestFrameMirrorLayout fails should a
// new version change either, and frameOf checks every read against the
// function GetInfo reports, giving up rather than trusting a bad layout.
type debugMirror struct {
	frame *callFrameMirror
}

type callFrameMirror struct {
	Idx        int
	Fn         *lua.LFunction
	Parent     *callFrameMirror
	Pc         int
	Base       int
	LocalBase  int
	ReturnBase int
	NArgs      int
	NRet       int
	TailCall   int
}

// frameOf returns the Lua function running in dbg's frame and the index of
// the instruction it is executing: gopher-lua advances Pc before running an
// instruction, so an error raised by it leaves Pc one past it.
func frameOf(L *lua.LState, dbg *lua.Debug) (*lua.LFunction, int, bool) {
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	if err != nil {
		return nil, 0, false
	}
	fn, ok := fv.(*lua.LFunction)
	if !ok || fn.IsG || fn.Proto == nil {
		return nil, 0, false
	}
	cf := (*debugMirror)(unsafe.Pointer(dbg)).frame
	if cf == nil || cf.Fn != fn || cf.Pc < 1 || cf.Pc > len(fn.Proto.Code) {
		return nil, 0, false
	}
	return fn, cf.Pc - 1, true
}
