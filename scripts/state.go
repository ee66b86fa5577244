package scripts

import (
	"log/slog"

	lua "github.com/yuin/gopher-lua"
)

// state is one prepared Lua interpreter. The engine lends it to one call at
// a time and points host and cur at that call.
type state struct {
	L        *lua.LState
	realG    *lua.LTable // the globals, read through proxy
	proxy    *lua.LTable // what scripts see as _G: empty, read-only
	readonly map[*lua.LTable]bool
	proxyOf  map[*lua.LTable]*lua.LTable // read-only proxy -> the table it shows
	snaps    []tableSnap
	extra    []lua.LValue // restore's scratch list of added keys
	onErr    *lua.LFunction
	lw       luaWriter
	rng      *lrand48 // the engine's, shared
	logger   *slog.Logger

	host     Host
	cur      *run
	noWrites bool // the running script declared flags=no-writes
	resp3    bool // the running script called redis.setresp(3)
	lib      bool // a library call: SCRIPT KILL is checked at redis.call
	// effects: the running call has written or published, so it can no
	// longer be handed to another implementation (alias.go)
	effects bool

	callArgs [][]byte // redis.call's argument list, reused between calls
	callNums []byte   // the text of its numeric arguments

	libs     map[string]*lua.LFunction
	libKeeps map[string]bool // library name -> keepsLibs
	libGen   int
	// keepsLibs: the running call cannot have changed the library tables,
	// so restore need not compare their fields
	keepsLibs bool

	chunkSources map[string]string // loadstring chunks: display name -> source

	// moduleResets put the modules' settings (cjson's) back to their
	// defaults after each call, so one script's cjson.encode_max_depth(2)
	// changes neither the qless library's replies nor another script's.
	moduleResets []func()

	chunks      map[*script]*cachedChunk // factory results (prefix.go)
	activeChunk *cachedChunk             // the running call's, restored after it

	errSource string
	errLine   int

	namedCallFn *lua.LFunction // namedCall (pcall.go), made once
	// ownText is the message error() or a wrapped coroutine is raising:
	// its position is already Lua's, so the raise hook leaves it.
	ownText    lua.LString
	raisePanic func(*lua.LState)

	// Protected calls and coroutines (pcallthread.go, coroutine.go); each
	// is back to empty when the call that pushed it returns.
	spare    []*lua.LState // idle helper threads
	pcalls   []pcallRun    // protected calls in progress, innermost last
	resumers []*lua.LState // the thread current at each resume in progress
	ccalls   int           // C calls in progress, as Lua 5.1 counts them, less the script's
}

// Lua 5.1's default C-stack depth is about 200 nested calls; scripts that
// recurse deeper than gopher-lua's default 256 frames run on Redis, so give
// them room; the value stack grows on demand.
const (
	callStackSize   = 1024
	registrySize    = 1024 * 4
	registryMaxSize = 1024 * 1024
)

func newState(e *Engine) *state {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    callStackSize,
		RegistrySize:     registrySize,
		RegistryMaxSize:  registryMaxSize,
		RegistryGrowStep: 256,
	})
	s := &state{L: L, logger: e.opts.Logger, rng: e.rng, readonly: map[*lua.LTable]bool{}, libs: map[string]*lua.LFunction{}, libKeeps: map[string]bool{}, chunkSources: map[string]string{}}
	s.buildSandbox(e.opts.ReadonlyTables)
	s.onErr = L.NewFunction(s.errorHandler)
	s.takeSnapshot()
	return s
}

// errorHandler notes where an error was raised, as Redis's
// __redis__err__handler does: the function that raised it, or its caller
// when that function is a Go (C) one.
func (s *state) errorHandler(L *lua.LState) int {
	s.errSource, s.errLine = "", 0
	msg := L.Get(1)
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, nil); err != nil {
			break
		}
		if dbg.What == "G" {
			continue
		}
		if m, ok := msg.(lua.LString); ok && level == 1 {
			// raised by the Lua code itself: a VM error, whose operand
			// can be named while its frame is still here
			msg = lua.LString(s.vmErrorText(L, dbg, string(m)))
		}
		s.errSource, s.errLine = s.sourceOf(dbg.Source), dbg.CurrentLine
		break
	}
	L.Push(msg)
	return 1
}

// sourceOf is a chunk's source as Lua's debug info reports it: "@user_script"
// for scripts, a loadstring chunk's own text (or name) otherwise.
func (s *state) sourceOf(display string) string {
	if src, ok := s.chunkSources[display]; ok {
		return src
	}
	return "@" + display
}
