package scripts

import (
	lua "github.com/yuin/gopher-lua"
)

const (
	errReadonly    = "Attempt to modify a readonly table"
	errNonexistent = "Script attempted to access nonexistent global variable '%s'"
)

// globalNames are the base functions Redis 7.0 leaves to scripts; every
// other base function gopher-lua opens (print, dofile, require, getfenv...)
// is removed.
var globalNames = []string{
	"assert", "collectgarbage", "error", "getmetatable", "ipairs", "load", "loadstring", "next",
	"pairs", "pcall", "rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber",
	"tostring", "type", "unpack", "xpcall", "_VERSION",
	"coroutine", "math", "string", "table",
}

// buildSandbox turns a fresh LState into Redis's script environment. The
// real globals table answers reads; scripts see it through an empty proxy
// whose writes fail, so a script can neither create nor replace a global.
func (s *state) buildSandbox(readonlyLibs bool) {
	L := s.L
	for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
		L.Push(L.NewFunction(open))
		L.Call(0, 0)
	}
	old := L.G.Global
	g := L.NewTable()
	for _, name := range globalNames {
		g.RawSetString(name, old.RawGetString(name))
	}
	L.G.Global = g
	s.realG = g
	s.proxy = L.NewTable()
	L.Env = s.proxy
	g.RawSetString("_G", s.proxy)

	s.installBase(g)
	s.installCoroutine(g.RawGetString("coroutine").(*lua.LTable))
	s.installMath(g.RawGetString("math").(*lua.LTable))
	strLib := g.RawGetString("string").(*lua.LTable)
	s.installString(strLib)
	// gopher-lua makes the string table its own metatable, which shows
	// __index in pairs(string); strings get a separate metatable instead.
	strLib.RawSetString("__index", lua.LNil)
	smt := L.NewTable()
	smt.RawSetString("__index", strLib)
	L.SetMetatable(lua.LString(""), smt)
	s.installTable(g.RawGetString("table").(*lua.LTable))
	s.installNumericArgs(g)
	g.RawSetString("redis", s.redisLib())
	// Redis keeps its error handler in the globals; scripts can see it.
	g.RawSetString("__redis__err__handler", L.NewFunction(func(L *lua.LState) int {
		v := L.Get(1)
		if _, ok := v.(*lua.LTable); !ok {
			v = errTable(L, "ERR "+lua.LVAsString(v))
		}
		L.Push(v)
		return 1
	}))
	for _, m := range Modules {
		mod, reset := m.Load(L)
		g.RawSetString(m.Name, mod)
		if reset != nil {
			s.moduleResets = append(s.moduleResets, reset)
		}
	}

	readonly := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(errReadonly)
		return 0
	})
	gmt := L.NewTable()
	numStrFn, argTableFn := L.NewFunction(numStr), L.NewFunction(argTable)
	gmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		// The compiler rewrites' helpers (concat.go, argtable.go), kept out
		// of pairs(_G).
		if k, ok := L.Get(2).(lua.LString); ok && k == numStrGlobal {
			L.Push(numStrFn)
			return 1
		} else if ok && k == argTableGlobal {
			L.Push(argTableFn)
			return 1
		}
		L.RaiseError(errNonexistent, lua.LVAsString(L.Get(2)))
		return 0
	}))
	gmt.RawSetString("__newindex", readonly)
	L.SetMetatable(g, gmt)
	pmt := L.NewTable()
	pmt.RawSetString("__index", g)
	pmt.RawSetString("__newindex", readonly)
	pmt.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(s.proxy, pmt)

	s.proxyOf = map[*lua.LTable]*lua.LTable{s.proxy: g}
	if readonlyLibs {
		s.protectLibs(readonly)
	}
	// pairs, next and rawget look through the proxies, so pairs(_G) and
	// rawget(_G, 'redis') see the globals as they do on Redis.
	baseNext := g.RawGetString("next").(*lua.LFunction)
	for _, name := range []string{"next", "rawget"} {
		g.RawSetString(name, s.throughProxy(g.RawGetString(name).(*lua.LFunction)))
	}
	g.RawSetString("pairs", s.pairsThroughProxy(g.RawGetString("pairs").(*lua.LFunction), s.throughProxy(baseNext)))
}

// pairsThroughProxy is pairs for a sandbox with proxies: over a proxy it
// returns the proxy itself as the loop's state, with a next that looks
// through it, so the real table never reaches a script (which could then
// change the globals' own fields) and select(2, pairs(_G)) == _G as on
// Redis. Other tables get the plain pairs.
func (s *state) pairsThroughProxy(f, next *lua.LFunction) *lua.LFunction {
	orig := f.GFunction
	return &lua.LFunction{IsG: true, Env: f.Env, Upvalues: f.Upvalues, GFunction: func(L *lua.LState) int {
		p, ok := L.Get(1).(*lua.LTable)
		real, isProxy := s.proxyOf[p]
		if !ok || !isProxy {
			return orig(L)
		}
		L.Replace(1, real)
		n := orig(L)
		if n == 3 {
			top := L.GetTop()
			L.Replace(top-2, next)
			L.Replace(top-1, p)
		}
		return n
	}}
}

func (s *state) throughProxy(f *lua.LFunction) *lua.LFunction {
	orig := f.GFunction
	if orig == nil {
		return f
	}
	return &lua.LFunction{IsG: true, Env: f.Env, Upvalues: f.Upvalues, GFunction: func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if real, ok := s.proxyOf[t]; ok {
				L.Replace(1, real)
			}
		}
		return orig(L)
	}}
}

// protectLibs replaces each library table with a read-only proxy, as Redis
// 7.0 does (--lua-readonly-tables). pairs() over a proxied library sees
// nothing; nothing in qless iterates them.
func (s *state) protectLibs(readonly *lua.LFunction) {
	L := s.L
	var names []string
	s.realG.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LTable); ok && k.String() != "_G" {
			names = append(names, k.String())
		}
	})
	for _, name := range names {
		lib := s.realG.RawGetString(name).(*lua.LTable)
		p := L.NewTable()
		mt := L.NewTable()
		mt.RawSetString("__index", lib)
		mt.RawSetString("__newindex", readonly)
		mt.RawSetString("__metatable", lua.LFalse)
		L.SetMetatable(p, mt)
		s.realG.RawSetString(name, p)
		s.readonly[p] = true
		s.proxyOf[p] = lib
		if name == "string" {
			smt := L.GetMetatable(lua.LString(""))
			if t, ok := smt.(*lua.LTable); ok {
				t.RawSetString("__index", p)
			}
		}
	}
}

// tableSnap is what a globals or library table held after preparation, so
// restore can undo whatever a script changed in it.
type tableSnap struct {
	t     *lua.LTable
	keys  []string
	vals  []lua.LValue
	last  lua.LValue          // the last key in iteration order; later keys are new
	added map[lua.LValue]bool // keys scripts added over the state's life
	mt    lua.LValue          // the metatable, restored when ownMT
	ownMT bool
	// sealed: no script can reach the table itself, only read it through a
	// read-only proxy (the real globals; libraries with ReadonlyTables), so
	// its fields keep their values and restore only removes the keys added
	// for a call (KEYS, ARGV).
	sealed bool
}

func (s *state) takeSnapshot() {
	s.snaps = s.snaps[:0]
	seen := map[*lua.LTable]bool{s.proxy: true}
	hidden := map[*lua.LTable]bool{}
	for _, real := range s.proxyOf {
		hidden[real] = true
	}
	var add func(t *lua.LTable)
	add = func(t *lua.LTable) {
		if seen[t] {
			return
		}
		seen[t] = true
		snap := tableSnap{t: t, last: lua.LNil, mt: t.Metatable, ownMT: true, sealed: hidden[t]}
		var subs []*lua.LTable
		// Next, unlike ForEach, walks in insertion order, which is what
		// makes "keys after last" the new ones.
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			snap.last = k
			if ks, ok := k.(lua.LString); ok {
				snap.keys = append(snap.keys, string(ks))
				snap.vals = append(snap.vals, v)
			}
			if sub, ok := v.(*lua.LTable); ok {
				subs = append(subs, sub)
			}
		}
		s.snaps = append(s.snaps, snap)
		for _, sub := range subs {
			add(sub)
		}
		if mt, ok := s.L.GetMetatable(t).(*lua.LTable); ok {
			if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok {
				add(idx)
			}
		}
	}
	add(s.realG)
	// Strings' metatable is reachable too: getmetatable('').
	if smt, ok := s.L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		add(smt)
	}
}

// maxAddedKeys bounds the keys scripts may add to library tables over a
// state's life: gopher-lua never forgets a key once set, so a state that
// collected too many is dropped rather than reused.
const maxAddedKeys = 10000

// restore puts the globals and libraries back as the snapshot saw them, so
// nothing one call defines (table.extend, KEYS, ARGV) leaks into the next.
// It reports false when the state should be dropped.
func (s *state) restore() bool {
	if len(s.chunkSources) > 0 {
		clear(s.chunkSources)
	}
	ok := true
	if s.keepsLibs {
		// Only keys added for the call (none for a library) to remove.
		ok = s.restoreAdded(s.snaps)
		s.keepsLibs = false
	} else {
		ok = s.restoreSnaps(s.snaps)
	}
	if k, _ := s.proxy.Next(lua.LNil); k != lua.LNil {
		var keys []lua.LValue
		s.proxy.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		for _, k := range keys {
			s.proxy.RawSet(k, lua.LNil)
		}
	}
	return ok
}

// restoreSnaps puts each table back as its snapshot saw it: string keys'
// values, keys added since removed, the array part emptied and, where the
// snapshot holds one, the metatable. False when the tables should go.
func (s *state) restoreSnaps(snaps []tableSnap) bool { return s.restoreTables(snaps, true) }

// restoreAdded is restoreSnaps for tables whose fields cannot have changed
// value: only added keys, the array part and the metatable are checked.
func (s *state) restoreAdded(snaps []tableSnap) bool { return s.restoreTables(snaps, false) }

func (s *state) restoreTables(snaps []tableSnap, values bool) bool {
	ok := true
	for i := range snaps {
		snap := &snaps[i]
		t := snap.t
		for j, k := range snap.keys {
			if snap.sealed || !values {
				break
			}
			if t.RawGetString(k) != snap.vals[j] {
				t.RawSetString(k, snap.vals[j])
			}
		}
		if k, _ := t.Next(snap.last); k != lua.LNil {
			s.extra = s.extra[:0]
			for ; k != lua.LNil; k, _ = t.Next(k) {
				s.extra = append(s.extra, k)
			}
			if snap.added == nil {
				snap.added = map[lua.LValue]bool{}
			}
			for _, k := range s.extra {
				t.RawSet(k, lua.LNil)
				snap.added[k] = true
			}
			clear(s.extra)
			if len(snap.added) > maxAddedKeys {
				ok = false
			}
		}
		if n := t.Len(); n > 0 {
			for ; n > 0; n-- {
				t.RawSetInt(n, lua.LNil)
			}
		}
		if snap.ownMT && t.Metatable != snap.mt {
			t.Metatable = snap.mt
		}
	}
	return ok
}
