package scripts

import (
	"strconv"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// A protected call (pcall, xpcall, xpcall's handler) runs on a helper
// thread: a gopher-lua thread that is no coroutine, sharing the script's
// globals, whose call stack holds only the protected function's frames (see
// pcall.go for why). A helper is taken for one protected call and handed
// back after it; protected calls nest strictly (a yield cannot cross one,
// coroutine.go), so the helpers in use form a stack.

// pcallRun is one protected call in progress: its helper and the thread
// that called pcall, which Lua sees as running the protected function.
type pcallRun struct {
	helper, caller *lua.LState
}

// spareHelpers is how many idle helpers a state keeps; deeper nesting
// makes new ones, dropped again after.
const spareHelpers = 4

// helperBytes is about what a new helper takes (TestHelperBytes): its call
// stack is allocated whole, since gopher-lua's growing one overflows with a
// Go panic ("lua callstack overflow") where the whole one raises Lua's
// "stack overflow".
const helperBytes = 96 << 10

// protected calls the function n-1 arguments below L's top with them on a
// helper, through namedCall. The n values leave L; on success the results
// are pushed on L.
func (s *state) protected(L *lua.LState, n int) error {
	h := s.takeHelper(L)
	h.Push(s.namedCallFn)
	L.XMoveTo(h, n)
	err := h.PCall(n, lua.MultRet, nil)
	s.pcalls = s.pcalls[:len(s.pcalls)-1]
	if err != nil {
		s.dropOrKeep(h, err)
		return err
	}
	h.XMoveTo(L, h.GetTop())
	s.keepHelper(h)
	return nil
}

// takeHelper readies a helper for a protected call made on L, under L's
// kill switch (none for a library call).
func (s *state) takeHelper(L *lua.LState) *lua.LState {
	var h *lua.LState
	if n := len(s.spare); n > 0 {
		h = s.spare[n-1]
		s.spare = s.spare[:n-1]
	} else {
		h = newHelper(L)
	}
	if ctx := L.Context(); ctx != nil {
		h.SetContext(ctx)
	} else if h.Context() != nil {
		h.RemoveContext()
	}
	s.pcalls = append(s.pcalls, pcallRun{helper: h, caller: L})
	return h
}

// dropOrKeep hands a helper back after a caught error. A Lua error raised
// on it closed the upvalues of all its frames (its hasErrorFunc is never
// set), so it is as good as new; a Go panic closed none, and closures may
// still share registers of it, so it goes.
func (s *state) dropOrKeep(h *lua.LState, err error) {
	if ae, ok := err.(*lua.ApiError); ok && ae.Type != lua.ApiErrorPanic {
		s.keepHelper(h)
	}
}

func (s *state) keepHelper(h *lua.LState) {
	if len(s.spare) < spareHelpers {
		h.SetTop(0)
		s.spare = append(s.spare, h)
	}
}

// newHelper makes a helper thread of L's. The thread starts with a small
// value stack, like a coroutine's, and counts against the memory ceiling.
func newHelper(L *lua.LState) *lua.LState {
	limits.Grow(L, helperBytes)
	saved := L.Options
	// Without L's context NewThread derives none: the helper is put
	// under the running call's own at each use.
	ctx := L.RemoveContext()
	defer func() {
		L.Options = saved
		if ctx != nil {
			L.SetContext(ctx)
		}
	}()
	L.Options.MinimizeStackMemory = false
	L.Options.CallStackSize = callStackSize
	L.Options.RegistrySize = threadRegistrySize
	L.Options.RegistryGrowStep = threadRegistryStep
	L.Options.RegistryMaxSize = registryMaxSize
	h, _ := L.NewThread()
	return h
}

// callerOf is the thread that made the protected call running on helper
// h, or nil when h is none.
func (s *state) callerOf(h *lua.LState) *lua.LState {
	for i := len(s.pcalls) - 1; i >= 0; i-- {
		if s.pcalls[i].helper == h {
			return s.pcalls[i].caller
		}
	}
	return nil
}

// where is luaL_where: "chunk:line: " of the function level calls up, or
// nothing when that is a Go function or absent. Levels past a helper's
// frames go on in the thread that called pcall: the helper's bottom frame
// (namedCall) stands where that thread's pcall frame is, as in Lua the
// protected function's caller is pcall.
func (s *state) where(L *lua.LState, level int) string {
	for {
		if dbg, ok := L.GetStack(level); ok {
			if _, err := L.GetInfo("Sl", dbg, nil); err != nil || dbg.CurrentLine <= 0 || dbg.What == "G" {
				return ""
			}
			return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
		}
		caller := s.callerOf(L)
		if caller == nil {
			return ""
		}
		frames := 0
		for {
			if _, ok := L.GetStack(frames); !ok {
				break
			}
			frames++
		}
		level -= frames - 1
		L = caller
	}
}

// Lua 5.1 counts the C calls a script nests (nCcalls): each lua_pcall,
// error handler call and coroutine.resume is one, and a call that makes
// the count 200 raises "C stack overflow"; from 225 on, a call fails with
// "error in error handling". qlessd counts pcall, xpcall, their handlers
// and coroutine.resume, which bounds their nesting as Redis does; the
// metamethods and library callbacks Lua also counts are not.
const (
	maxCCalls      = 200
	errCStack      = "C stack overflow"
	errErrHandling = "error in error handling"
)

// callCheck is luaD_call's check for a call making the count n.
func callCheck(n int) string {
	switch {
	case n == maxCCalls:
		return errCStack
	case n >= maxCCalls+maxCCalls>>3:
		return errErrHandling
	}
	return ""
}

// callLimit is callCheck for a protected call made now. Lua's count is 1
// while the script's own code runs, plus the C calls in progress.
func (s *state) callLimit() string { return callCheck(s.ccalls + 2) }
