package scripts

import (
	"fmt"
	"unsafe"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// RegisterLibrary compiles a trusted chunk that returns a function. Each
// pooled state runs the chunk once (in the script sandbox) and keeps the
// function; CallLibrary calls it. Registering a name again replaces it.
// The chunk is named user_script, as EVAL bodies are, because qless clients
// find the message in an error by the pattern "user_script:<line>:".
func (e *Engine) RegisterLibrary(name, src string) error {
	return e.RegisterLibraryWith(name, src, nil)
}

// RegisterLibraryWith is RegisterLibrary for a chunk that takes arguments:
// args makes them in each state that runs the chunk (Go functions, say,
// which only the library then sees).
func (e *Engine) RegisterLibraryWith(name, src string, args func(L *lua.LState) []lua.LValue) error {
	proto, keeps, err := compileLibrary(src, chunkName)
	if err != nil {
		return fmt.Errorf("library %s: %w", name, err)
	}
	e.mu.Lock()
	e.libs[name] = &library{name: name, proto: proto, keepsLibs: keeps, args: args}
	e.libGen++
	e.mu.Unlock()
	// Drop idle states so every state runs the new chunk before its next use.
	e.poolMu.Lock()
	for _, s := range e.idle {
		s.L.Close()
	}
	e.idle = nil
	e.poolMu.Unlock()
	return nil
}

// loadLibraries runs every registered chunk the state has not run yet, then
// retakes the snapshot so what the chunks set up survives between calls.
func (s *state) loadLibraries(e *Engine) error {
	e.mu.RLock()
	gen := e.libGen
	libs := make([]*library, 0, len(e.libs))
	for _, l := range e.libs {
		libs = append(libs, l)
	}
	e.mu.RUnlock()
	if gen == s.libGen {
		return nil
	}
	L := s.L
	for _, lib := range libs {
		fn := L.NewFunctionFromProto(lib.proto)
		fn.Env = s.proxy
		L.Push(fn)
		var args []lua.LValue
		if lib.args != nil {
			args = lib.args(L)
		}
		for _, a := range args {
			L.Push(a)
		}
		if err := L.PCall(len(args), 1, nil); err != nil {
			return fmt.Errorf("ERR library %s failed to load: %v", lib.name, err)
		}
		f, ok := L.Get(-1).(*lua.LFunction)
		L.Pop(1)
		if !ok {
			return fmt.Errorf("ERR library %s did not return a function", lib.name)
		}
		s.libs[lib.name] = f
		s.libKeeps[lib.name] = lib.keepsLibs
	}
	s.libGen = gen
	s.takeSnapshot()
	return nil
}

// CallLibrary calls a registered library's function with args as Lua
// strings and converts its result as EVAL does. Errors reply "ERR <message>"
// (or the {err=...} text) without script framing.
func (e *Engine) CallLibrary(host Host, name string, args [][]byte, w resp.Writer) {
	e.call(host, true, e.libraryCall(name, nil, args), w, func(s *state, obj lua.LValue, killed bool) string {
		if killed {
			return "ERR " + errScriptKilled
		}
		return errMessage(obj)
	})
}

// libraryCall prepares a call of library name with args, after lead when
// it is not nil.
func (e *Engine) libraryCall(name string, lead lua.LValue, args [][]byte) func(s *state) (*lua.LFunction, int, error) {
	return func(s *state) (*lua.LFunction, int, error) {
		if err := s.loadLibraries(e); err != nil {
			return nil, 0, err
		}
		fn, ok := s.libs[name]
		if !ok {
			return nil, 0, fmt.Errorf("ERR unknown library '%s'", name)
		}
		s.keepsLibs = s.libKeeps[name]
		n := len(args)
		if lead != nil {
			s.L.Push(lead)
			n++
		}
		pushStrings(s.L, args)
		return fn, n, nil
	}
}

// pushStrings pushes args as Lua strings.
func pushStrings(L *lua.LState, args [][]byte) {
	all, off := joined(args), 0
	for _, a := range args {
		L.Push(lua.LString(all[off : off+len(a)]))
		off += len(a)
	}
}

// joined copies args into one string, from which their Lua strings are
// cut: one allocation for the text instead of one per argument.
func joined(args [][]byte) string {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	for _, a := range args {
		buf = append(buf, a...)
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}
