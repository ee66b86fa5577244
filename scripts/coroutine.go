package scripts

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's coroutine library over gopher-lua's. gopher-lua lets a
// coroutine yield from under a Go function that called back into Lua
// (pcall, table.sort's comparator...), which leaves that function's Go
// frame behind with a thread that has moved on; Lua refuses ("attempt to
// yield across metamethod/C-call boundary"), and so does qlessd's yield.
// gopher-lua also resumes a coroutine that is not suspended but waiting
// on one it resumed ("normal"), recursing until Go's stack overflows and
// the server dies, and leaves G.CurrentThread at a wrapped coroutine that
// failed. The wrappers here check a coroutine's status as Lua does and put
// the current thread back after each resume.

const (
	errYieldAcross  = "attempt to yield across metamethod/C-call boundary"
	errLuaFnWanted  = "Lua function expected"
	errCoWanted     = "coroutine expected"
	statusRunning   = "running"
	statusSuspended = "suspended"
	statusNormal    = "normal"
	statusDead      = "dead"
)

// installCoroutine replaces the coroutine library's functions. Threads
// are made under the calling script's kill switch (killswitch.go).
func (s *state) installCoroutine(co *lua.LTable) {
	L := s.L
	orig := func(name string) lua.LGFunction { return co.RawGetString(name).(*lua.LFunction).GFunction }
	create, wrap, resume, yield := orig("create"), orig("wrap"), orig("resume"), orig("yield")
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		checkLuaFunction(L)
		n := newThread(L, create)
		if th, ok := L.Get(-1).(*lua.LState); ok {
			s.underSwitch(th)
		}
		return n
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int { return s.wrap(L, wrap) }))
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		th := checkCoroutine(L)
		if msg := s.cannotResume(L, th); msg != "" {
			return pcallFailed(L, lua.LString(msg))
		}
		return s.resuming(L, resume)
	}))
	co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if yieldBlocked(L) {
			L.Error(lua.LString(errYieldAcross), 0)
		}
		return yield(L)
	}))
	co.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(s.status(L, checkCoroutine(L))))
		return 1
	}))
	co.RawSetString("running", L.NewFunction(func(L *lua.LState) int {
		// Inside pcall L is a helper; the coroutine running is the
		// current thread, which resuming keeps right.
		if cur := L.G.CurrentThread; cur != L.G.MainThread {
			L.Push(cur)
		} else {
			L.Push(lua.LNil)
		}
		return 1
	}))
}

// checkCoroutine is getco's check of resume's and status's argument.
func checkCoroutine(L *lua.LState) *lua.LState {
	th, ok := L.Get(1).(*lua.LState)
	if !ok {
		L.ArgError(1, errCoWanted)
	}
	return th
}

// checkLuaFunction is luaB_cocreate's check: a coroutine's body must be a
// Lua function, so that a yield never has a Go frame under it.
func checkLuaFunction(L *lua.LState) {
	if fn, ok := L.Get(1).(*lua.LFunction); !ok || fn.IsG {
		L.ArgError(1, errLuaFnWanted)
	}
}

// wrap is coroutine.wrap, made with gopher-lua's (origWrap), whose
// function is wrapped in turn: it checks the coroutine's status first and
// raises what it refuses with the caller's position, as Lua's auxwrap does.
func (s *state) wrap(L *lua.LState, origWrap lua.LGFunction) int {
	checkLuaFunction(L)
	n := newThread(L, origWrap)
	fn, ok := L.Get(-1).(*lua.LFunction)
	if !ok || len(fn.Upvalues) == 0 {
		return n
	}
	th, ok := fn.Upvalues[0].Value().(*lua.LState)
	if !ok {
		return n
	}
	s.underSwitch(th)
	aux := fn.GFunction
	L.Pop(1)
	L.Push(L.NewClosure(func(L *lua.LState) int {
		if msg := s.cannotResume(L, th); msg != "" {
			L.Error(lua.LString(s.where(L, 1)+msg), 0)
		}
		return s.resuming(L, func(L *lua.LState) int { return s.reraise(L, aux) })
	}, th))
	return 1
}

// reraise runs a wrapped coroutine's resume (aux) as Lua's auxwrap does:
// an error the coroutine raised is raised again, a string (or number)
// prefixed with the caller's position. gopher-lua hands that error to the
// resuming thread as a Go panic that closes none of its upvalues; raised
// again here as a Lua error, it closes them as any error raised on the
// thread does.
func (s *state) reraise(L *lua.LState, aux lua.LGFunction) int {
	defer func() {
		if r := recover(); r != nil {
			ae, ok := r.(*lua.ApiError)
			if !ok {
				panic(r)
			}
			obj := ae.Object
			if n, ok := obj.(lua.LNumber); ok {
				obj = lua.LString(fmtNumber(float64(n)))
			}
			if text, ok := obj.(lua.LString); ok {
				text = lua.LString(s.where(L, 1)) + text
				s.ownText, obj = text, text
			}
			L.Error(obj, 0)
		}
	}()
	return aux(L)
}

// resuming runs a resume (run) made on L: one C call deeper, with the
// thread current when it began noted as "normal" for its extent and made
// current again after.
func (s *state) resuming(L *lua.LState, run lua.LGFunction) int {
	prev := L.G.CurrentThread
	s.resumers = append(s.resumers, prev)
	s.ccalls++
	defer func() {
		s.ccalls--
		s.resumers = s.resumers[:len(s.resumers)-1]
		L.G.CurrentThread = prev
	}()
	return run(L)
}

// cannotResume is why Lua 5.1 refuses to resume th now, "" if it does not.
func (s *state) cannotResume(L *lua.LState, th *lua.LState) string {
	if st := s.status(L, th); st != statusSuspended {
		return "cannot resume " + st + " coroutine"
	}
	if s.ccalls+1 >= maxCCalls {
		return errCStack
	}
	return ""
}

// status is coroutine.status: "normal" for a coroutine that resumed
// another still running, at any depth.
func (s *state) status(L *lua.LState, th *lua.LState) string {
	switch {
	case th.Dead:
		return statusDead
	case th == L.G.CurrentThread:
		return statusRunning
	case slices.Contains(s.resumers, th):
		return statusNormal
	}
	return statusSuspended
}

// yieldBlocked reports whether Lua 5.1 would refuse a yield here: outside
// any coroutine, or with a C call between the yield and the coroutine's
// body. A Go function on the way is one (a helper's bottom frame is
// namedCall, so a yield inside pcall is refused); so is a metamethod or a
// generic for's iterator, which gopher-lua calls from Go without a frame
// of its own: the Lua frame under it is then at an instruction other than
// a call.
func yieldBlocked(L *lua.LState) bool {
	if L == L.G.MainThread {
		return true
	}
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return false
		}
		if fn, err := L.GetInfo("f", dbg, lua.LNil); err != nil || !isLuaFunction(fn) {
			return true
		}
		if fn, pc, ok := frameOf(L, dbg); ok {
			if op := instr(fn.Proto.Code[pc]).op(); op != lua.OP_CALL && op != lua.OP_TAILCALL {
				return true
			}
		}
	}
}
