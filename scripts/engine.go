// Package scripts runs Redis-compatible Lua (EVAL) on gopher-lua: a cache
// of compiled scripts, a pool of sandboxed interpreters, the redis.* library
// and Redis 7.0's conversions and error texts.
package scripts

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// Options configure an Engine.
type Options struct {
	// TimeLimit is lua-time-limit: past it other clients get BUSY. Zero
	// or less is no limit, as on Redis: the others wait.
	TimeLimit time.Duration
	Logger    *slog.Logger
	// MaxScripts bounds the script cache; the oldest entry goes first.
	MaxScripts int
	// ReadonlyTables makes the standard library tables read-only, as
	// Redis 7.0 has them (stock qless-core's table.extend then fails).
	ReadonlyTables bool
	// MaxIdleStates bounds the interpreters kept for reuse.
	MaxIdleStates int
	// MaxMemory is lua-max-memory: how much heap one script call may
	// take (0: no ceiling). Library calls have none.
	MaxMemory int64
}

// Engine compiles, caches and runs scripts. It is shared by all clients.
type Engine struct {
	opts Options

	mu      sync.RWMutex
	cache   map[string]*script
	order   []string
	libs    map[string]*library
	libGen  int
	aliases map[string]*aliasOf // script SHA -> library that runs it (alias.go)

	poolMu sync.Mutex
	idle   []*state

	runMu   sync.Mutex
	running map[*run]struct{}
	pending map[*run]struct{} // announced scripts not yet running
	active  atomic.Int32      // len(running) + len(pending), read without runMu
	limit   atomic.Int64      // lua-time-limit, in nanoseconds
	// maxMemory is lua-max-memory: the heap one script call may take
	// (memlimit.go), in bytes; 0 for no ceiling.
	maxMemory atomic.Int64

	rng *lrand48
}

type script struct {
	sha     string
	proto   *lua.FunctionProto
	factory *lua.FunctionProto // see prefix.go; nil when the chunk has none
	flags   scriptFlags
	alias   *aliasOf // what runs this script instead (alias.go), or nil
	body    string   // the source, for errors an alias must phrase (aliaslate.go)
}

// loadError is a Load failure whose text is the whole reply.
type loadError struct{ msg string }

func (e *loadError) Error() string { return e.msg }

type library struct {
	name  string
	proto *lua.FunctionProto
	// keepsLibs: the chunk cannot change the library tables (libsafe.go)
	keepsLibs bool
	args      func(L *lua.LState) []lua.LValue // RegisterLibraryWith
}

// NewEngine returns an engine with an empty cache.
func NewEngine(opts Options) *Engine {
	if opts.MaxScripts <= 0 {
		opts.MaxScripts = 10000
	}
	if opts.MaxIdleStates <= 0 {
		opts.MaxIdleStates = 16
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	e := &Engine{opts: opts, cache: map[string]*script{}, libs: map[string]*library{}, aliases: map[string]*aliasOf{}, running: map[*run]struct{}{}, pending: map[*run]struct{}{}, rng: newLrand48()}
	e.limit.Store(int64(opts.TimeLimit))
	e.maxMemory.Store(opts.MaxMemory)
	return e
}

// SetMaxMemory changes lua-max-memory (CONFIG SET) for the calls that
// start after it.
func (e *Engine) SetMaxMemory(n int64) { e.maxMemory.Store(max(n, 0)) }

// SetTimeLimit changes lua-time-limit (CONFIG SET), for running scripts
// too, as on Redis.
func (e *Engine) SetTimeLimit(d time.Duration) { e.limit.Store(int64(max(d, 0))) }

// noLimit stands for "never" as a deadline: lua-time-limit 0.
const noLimit = 100 * 365 * 24 * time.Hour

// busyAt is when a script started at start passes lua-time-limit.
func (e *Engine) busyAt(start time.Time) time.Time {
	if limit := time.Duration(e.limit.Load()); limit > 0 {
		return start.Add(limit)
	}
	return start.Add(noLimit)
}

// SHA1 returns the hex SHA1 by which a script body is known.
func SHA1(body []byte) string {
	sum := sha1.Sum(body)
	return hex.EncodeToString(sum[:])
}

// CompileError is the reply text for a script that does not compile.
type CompileError struct{ Msg string }

func (e *CompileError) Error() string {
	return "ERR Error compiling script (new function): " + e.Msg
}

// Load compiles body (once per SHA) and caches it, returning its SHA.
func (e *Engine) Load(body []byte) (string, error) {
	sha := SHA1(body)
	if _, ok := e.lookup(sha); ok {
		return sha, nil
	}
	sc, err := compileScript(sha, body)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.cache[sha]; !ok {
		for len(e.order) >= e.opts.MaxScripts {
			delete(e.cache, e.order[0])
			e.order = e.order[1:]
		}
		sc.alias = e.aliases[sha]
		e.cache[sha] = sc
		e.order = append(e.order, sha)
	}
	return sha, nil
}

func (e *Engine) lookup(sha string) (*script, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	sc, ok := e.cache[strings.ToLower(sha)]
	return sc, ok
}

// Exists reports whether a SHA is cached.
func (e *Engine) Exists(sha string) bool {
	_, ok := e.lookup(sha)
	return ok
}

// Flush empties the script cache (SCRIPT FLUSH).
func (e *Engine) Flush() {
	e.mu.Lock()
	e.cache = map[string]*script{}
	e.order = nil
	e.mu.Unlock()
}

// ErrNoScript is EvalSHA's reply to an unknown SHA, in Redis's words.
const ErrNoScript = "NOSCRIPT No matching script. Please use EVAL."

// Eval compiles (or finds) body and runs it, writing the reply to w.
func (e *Engine) Eval(host Host, body []byte, keys, argv [][]byte, w resp.Writer) {
	sha, err := e.Load(body)
	if err != nil {
		w.WriteError(err.Error())
		return
	}
	sc, ok := e.lookup(sha)
	if !ok { // flushed or evicted in between: compile again for this call
		if sc, err = compileScript(sha, body); err != nil {
			w.WriteError(err.Error())
			return
		}
	}
	e.run(host, sc, keys, argv, w)
}

// EvalSHA runs a cached script, or writes NOSCRIPT. sha is not kept.
func (e *Engine) EvalSHA(host Host, sha string, keys, argv [][]byte, w resp.Writer) {
	sc, ok := e.lookup(sha)
	if !ok || len(sha) != 40 {
		w.WriteError(ErrNoScript)
		return
	}
	e.run(host, sc, keys, argv, w)
}

func compileScript(sha string, body []byte) (*script, error) {
	src, flags, errText := parseShebang(string(body))
	if errText != "" {
		return nil, &loadError{errText}
	}
	proto, factory, err := compileScriptSource(src, chunkName)
	if err != nil {
		return nil, &CompileError{Msg: err.Error()}
	}
	return &script{sha: sha, proto: proto, factory: factory, flags: flags, body: string(body)}, nil
}

// ReadOnlyHost is implemented by hosts of EVAL_RO and EVALSHA_RO calls.
type ReadOnlyHost interface{ ReadOnly() bool }

// WriteRefusingHost is implemented by hosts that know whether writes are
// refused (the data file cannot be written): WritesRefused returns the
// error reply, or "". A script whose shebang does not say no-writes is
// then refused before it runs, as Redis refuses it.
type WriteRefusingHost interface{ WritesRefused() string }

func (e *Engine) getState() *state {
	e.poolMu.Lock()
	if n := len(e.idle); n > 0 {
		s := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.poolMu.Unlock()
		return s
	}
	e.poolMu.Unlock()
	return newState(e)
}

func (e *Engine) putState(s *state) {
	e.poolMu.Lock()
	defer e.poolMu.Unlock()
	if len(e.idle) < e.opts.MaxIdleStates {
		e.idle = append(e.idle, s)
		return
	}
	s.L.Close()
}

// call runs fn with args on a pooled state for host and writes the
// converted result; errText shapes the error reply of a failed call, or
// returns "" to write nothing (the caller answers instead).
//
// A trusted library call (lib) runs without the kill switch that lets
// SCRIPT KILL stop a script between any two instructions (killswitch.go):
// with one, gopher-lua calls into it before every instruction. Library code
// cannot spin forever, so it is stopped at its next redis.call instead
// (before any write, as for scripts).
func (e *Engine) call(host Host, lib bool, prep func(s *state) (*lua.LFunction, int, error), w resp.Writer, errText func(s *state, obj lua.LValue, killed bool) string) {
	s := e.getState()
	r := e.begin()
	s.host, s.cur, s.lib, s.effects, s.resp3 = host, r, lib, false, false
	L := s.L
	if !lib {
		r.stop.arm(e.maxMemory.Load())
		L.SetContext(&r.stop)
	}
	broken := false
	defer func() {
		if !lib {
			L.RemoveContext()
			r.stop.disarm()
		}
		s.host, s.cur, s.noWrites, s.lib, s.resp3 = nil, nil, false, false, false
		s.restoreChunk()
		for _, reset := range s.moduleResets {
			reset()
		}
		// After a memory error the state may hold what the script
		// built (a grown stack, kept buffers): it goes.
		if !s.restore() || r.stop.mem.refused || r.stop.mem.stopped {
			broken = true
		}
		L.SetTop(0)
		e.end(r)
		if broken {
			L.Close()
			return
		}
		e.putState(s)
	}()
	fn, nargs, err := prep(s)
	if err != nil {
		w.WriteError(err.Error())
		return
	}
	base := L.GetTop() - nargs
	L.Insert(fn, base+1)
	err = L.PCall(nargs, 1, s.onErr)
	if err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
			broken = ae.Type == lua.ApiErrorPanic
		}
		if msg := errText(s, obj, r.wasKilled()); msg != "" {
			w.WriteError(lineSafe(msg))
		}
		return
	}
	s.writeResult(L.Get(-1), w, errText)
}

// writeResult checks and writes a call's result.
func (s *state) writeResult(v lua.LValue, w resp.Writer, errText func(s *state, obj lua.LValue, killed bool) string) {
	r := s.cur
	check := replyCheck{max: r.stop.mem.limit, killed: r.wasKilled}
	verdict := check.walk(v, 0)
	s.errSource, s.errLine = "", 0
	switch verdict {
	case replyOK:
		writeReply(w, v, s.resp3)
	case replyTooDeep:
		w.WriteError(errStackLimit)
	case replyTooBig:
		r.stop.mem.refused = true
		w.WriteError(lineSafe(errText(s, lua.LString(errNoMemory), false)))
	case replyKilled:
		w.WriteError(lineSafe(errText(s, lua.LString(errScriptKilled), true)))
	}
}

func (e *Engine) run(host Host, sc *script, keys, argv [][]byte, w resp.Writer) {
	if wr, ok := host.(WriteRefusingHost); ok && sc.flags.shebang && !sc.flags.noWrites {
		if msg := wr.WritesRefused(); msg != "" {
			w.WriteError(msg)
			return
		}
	}
	if ro, ok := host.(ReadOnlyHost); ok && ro.ReadOnly() && sc.flags.shebang && !sc.flags.noWrites {
		w.WriteError("ERR Can not execute a script with write flag using *_ro command.")
		return
	}
	if sc.alias != nil && len(keys) == 0 {
		e.runAlias(host, sc, argv, w)
		return
	}
	e.runScript(host, sc, keys, argv, w)
}

// runScript runs sc's own code.
func (e *Engine) runScript(host Host, sc *script, keys, argv [][]byte, w resp.Writer) {
	prep := func(s *state) (*lua.LFunction, int, error) {
		s.noWrites = sc.flags.noWrites
		s.realG.RawSetString("KEYS", strTable(s.L, keys))
		s.realG.RawSetString("ARGV", strTable(s.L, argv))
		if fn := s.chunkFunction(sc); fn != nil {
			return fn, 0, nil
		}
		fn := s.L.NewFunctionFromProto(sc.proto)
		fn.Env = s.proxy
		return fn, 0, nil
	}
	e.call(host, false, prep, w, scriptErrText(sc))
}

// scriptErrText shapes a failed script's error reply as Redis does.
func scriptErrText(sc *script) func(s *state, obj lua.LValue, killed bool) string {
	return func(s *state, obj lua.LValue, killed bool) string {
		if !killed && s.cur != nil && s.cur.stop.outOfMemory(obj) {
			return "ERR Error running script " + sc.sha + ", " + errNoMemory
		}
		msg := errMessage(obj)
		if msg == "ERR lua callstack overflow" {
			msg = "ERR " + strings.TrimPrefix(s.errSource, "@") + ":" + strconv.Itoa(s.errLine) + ": stack overflow"
		}
		if killed {
			msg = "ERR " + errScriptKilled
		}
		if s.errLine > 0 && s.errSource != "" {
			msg += fmt.Sprintf(" script: %s, on %s:%d.", sc.sha, s.errSource, s.errLine)
		}
		return msg
	}
}

// errMessage is the text of a raised Lua value as Redis's error handler
// makes it: an {err=...} table keeps its text, anything else gets ERR.
func errMessage(obj lua.LValue) string {
	if t, ok := obj.(*lua.LTable); ok {
		if e, ok := t.RawGetString("err").(lua.LString); ok {
			return string(e)
		}
		return "ERR unknown error"
	}
	switch v := obj.(type) {
	case lua.LString:
		return "ERR " + luaMessage(string(v))
	case lua.LNumber:
		return "ERR " + fmtNumber(float64(v))
	case *lua.LNilType:
		return "ERR nil"
	}
	return "ERR " + obj.String()
}

func strTable(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	all, off := joined(items), 0
	for _, it := range items {
		t.Append(lua.LString(all[off : off+len(it)]))
		off += len(it)
	}
	return t
}

// run is one script execution, tracked for BUSY and SCRIPT KILL.
type run struct {
	start time.Time
	done  chan struct{} // made lazily for running scripts; runMu guards it
	// stop is tripped by SCRIPT KILL; a script runs under it as its
	// context, a library call only reads it (at its next redis.call).
	stop killSwitch

	mu    sync.Mutex // orders a write against a kill
	wrote bool

	e *Engine
	// A library call's look at the clock (longcall.go): redis.call made
	// so far, and whether its host was told it runs past the limit.
	polls uint32
	aside bool
}

// begin tracks a run. Its done channel is made when someone first waits on
// it (doneChan).
func (e *Engine) begin() *run { return e.beginAt(time.Now()) }

// beginAt tracks a run that started at start: a call in Go is tracked
// once it has run for a while (longcall.go), from when it started.
func (e *Engine) beginAt(start time.Time) *run {
	r := &run{start: start, e: e}
	e.runMu.Lock()
	e.running[r] = struct{}{}
	e.active.Add(1)
	e.restartPending(time.Now())
	e.runMu.Unlock()
	return r
}

func (e *Engine) end(r *run) {
	e.runMu.Lock()
	delete(e.running, r)
	e.active.Add(-1)
	e.restartPending(time.Now())
	if r.done != nil {
		close(r.done)
	}
	e.runMu.Unlock()
}

// doneChan is r's done channel, made on first use; runMu held.
func (r *run) doneChan() chan struct{} {
	if r.done == nil {
		r.done = make(chan struct{})
	}
	return r.done
}

// noteWrite records that the script is about to write; false when it was
// killed first.
func (r *run) noteWrite() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop.killed() {
		return false
	}
	r.wrote = true
	return true
}

func (r *run) wasKilled() bool { return r.stop.killed() }

// IsLibraryCall reports whether EVALSHA of sha calls a registered library
// (AliasScript): such a call is not announced, and is watched while it runs
// (longcall.go).
func (e *Engine) IsLibraryCall(sha []byte) bool { return sha != nil && e.isAlias(sha) }

// restartPending restarts the clocks of announced runs when a script
// starts or ends. An announcement may cover several scripts run one after
// another (an event-loop batch, EXEC), and on Redis each script has the
// whole time limit to itself; and a script that waits for the store waits
// for whoever holds it, whose own clock is the one that counts. runMu is
// held.
func (e *Engine) restartPending(now time.Time) {
	for r := range e.pending {
		r.start = now
	}
}

// Announce registers a script about to run, before its caller takes the
// store lock, so a command arriving meanwhile waits for it (or gets BUSY)
// instead of queueing on the lock behind a script that may never end. The
// caller calls release once the script's command is over. sha is an
// EVALSHA's script (nil for EVAL): a library's alias is not announced:
// announcing it would make every concurrent qless call wait for the one
// before, and lose their shared commit. While its Lua runs it is
// registered as running like any script, so later arrivals still wait (or
// get BUSY), and a long one is watched as longcall.go says. It returns nil
// then.
func (e *Engine) Announce(sha []byte) (release func()) {
	if sha != nil && e.isAlias(sha) {
		return nil
	}
	r := &run{start: time.Now()}
	e.runMu.Lock()
	e.pending[r] = struct{}{}
	e.active.Add(1)
	e.runMu.Unlock()
	return func() {
		e.runMu.Lock()
		delete(e.pending, r)
		e.active.Add(-1)
		if r.done != nil {
			close(r.done)
		}
		e.runMu.Unlock()
	}
}

// Busy reports the oldest running (or announced) script: done is closed
// when it ends (nil when none runs) and busyAt is when it passes the time
// limit, after which other clients get BUSY. A command that arrives while a
// script runs waits for whichever comes first, as Redis's clients wait on
// its one thread.
func (e *Engine) Busy() (done <-chan struct{}, busyAt time.Time) {
	if e.active.Load() == 0 {
		return nil, time.Time{}
	}
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.oldest(true)
}

func (e *Engine) oldest(withPending bool) (done <-chan struct{}, busyAt time.Time) {
	var oldest *run
	for r := range e.running {
		if oldest == nil || r.start.Before(oldest.start) {
			oldest = r
		}
	}
	for r := range e.pending {
		if withPending && (oldest == nil || r.start.Before(oldest.start)) {
			oldest = r
		}
	}
	if oldest == nil {
		return nil, time.Time{}
	}
	return oldest.doneChan(), e.busyAt(oldest.start)
}

// Kill replies as SCRIPT KILL: "" when it stopped the running scripts,
// else the error text (NOTBUSY, UNKILLABLE). As on Redis, where SCRIPT KILL
// is only served once a script is past the time limit, a script still under
// it is waited for: it ends (NOTBUSY) or crosses the limit (killed).
func (e *Engine) Kill() string {
	for {
		e.runMu.Lock()
		done, busyAt := e.oldest(false)
		e.runMu.Unlock()
		if done == nil {
			return "NOTBUSY No scripts in execution right now."
		}
		if wait := time.Until(busyAt); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-done:
			case <-t.C:
			}
			t.Stop()
			continue
		}
		if msg, ok := e.killBusy(); ok {
			return msg
		}
	}
}

// killBusy kills every script past the time limit unless one has written;
// ok is false when none was past it any more.
func (e *Engine) killBusy() (msg string, ok bool) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	var busy []*run
	for r := range e.running {
		if !time.Now().Before(e.busyAt(r.start)) {
			busy = append(busy, r)
		}
	}
	if len(busy) == 0 {
		return "", false
	}
	for _, r := range busy {
		r.mu.Lock()
		wrote := r.wrote
		r.mu.Unlock()
		if wrote {
			return "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.", true
		}
	}
	for _, r := range busy {
		r.mu.Lock()
		r.stop.trip()
		r.mu.Unlock()
	}
	e.opts.Logger.Warn("Lua script killed by user with SCRIPT KILL.")
	return "", true
}

// Cached is the number of scripts in the cache.
func (e *Engine) Cached() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.cache)
}
