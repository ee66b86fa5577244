package scripts

import (
	"regexp"
	"sort"
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// More Lua 5.1 library behaviour gopher-lua does not have: argument checks
// and texts scripts can observe.

func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := int64(formatNumberArgNamed(L, i, "char"))
		if c < 0 || c > 255 {
			L.RaiseError("bad argument #%d to 'char' (invalid value)", i)
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// formatNumberArgNamed is luaL_checknumber for argument n of function fn.
func formatNumberArgNamed(L *lua.LState, n int, fn string) float64 {
	if n <= L.GetTop() {
		switch v := L.Get(n).(type) {
		case lua.LNumber:
			return float64(v)
		case lua.LString:
			if f, ok := str2number(string(v)); ok {
				return f
			}
		}
	}
	L.RaiseError("bad argument #%d to '%s' (number expected, got %s)", n, fn, typeNameOf(L, n))
	return 0
}

// tableInsert is Lua 5.1's tinsert, with its argument count check.
func tableInsert(L *lua.LState) int {
	tb := L.CheckTable(1)
	e := tb.Len() + 1
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = int(int32(formatNumberArgNamed(L, 2, "insert")))
		if pos > e {
			// gopher-lua fills its array part with nils up to pos.
			limits.Grow(L, 16*(pos-e))
			e = pos
		}
		for i := e; i > pos; i-- {
			tb.RawSetInt(i, tb.RawGetInt(i-1))
		}
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	tb.RawSetInt(pos, L.Get(L.GetTop()))
	return 0
}

// sortArray sorts t[1..#t] as gopher-lua's table.sort does (Go's sort,
// with the order function or Lua's <), polling SCRIPT KILL as it compares:
// sorting millions of elements takes seconds.
func sortArray(L *lua.LState) int {
	tb := L.CheckTable(1)
	var fn *lua.LFunction
	if L.GetTop() != 1 {
		fn = L.CheckFunction(2)
	}
	n := tb.Len()
	limits.Grow(L, 16*n)
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = tb.RawGetInt(i + 1)
	}
	sort.Sort(&luaSorter{L: L, fn: fn, vals: vals})
	for i, v := range vals {
		tb.RawSetInt(i+1, v)
	}
	return 0
}

type luaSorter struct {
	L     *lua.LState
	fn    *lua.LFunction
	vals  []lua.LValue
	calls int
}

func (s *luaSorter) Len() int      { return len(s.vals) }
func (s *luaSorter) Swap(i, j int) { s.vals[i], s.vals[j] = s.vals[j], s.vals[i] }

func (s *luaSorter) Less(i, j int) bool {
	if s.calls++; s.calls%limits.Every == 0 {
		limits.Poll(s.L)
	}
	if s.fn == nil {
		return s.L.LessThan(s.vals[i], s.vals[j])
	}
	s.L.Push(s.fn)
	s.L.Push(s.vals[i])
	s.L.Push(s.vals[j])
	s.L.Call(2, 1)
	less := lua.LVAsBool(s.L.Get(-1))
	s.L.Pop(1)
	return less
}

var reComparePos = regexp.MustCompile(`^(?:[^:]*:\d+:)? (attempt to compare .*)$`)

// tableSort runs gopher-lua's sort, but a comparison error raised inside it
// carries no position, as in Lua where it is raised from C. It runs under
// named (namedCall, pcall.go), so that a comparator's runtime error names
// its operand although this PCall unwinds the comparator's frame.
func tableSort(orig, named *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.GetTop()
		L.Insert(orig, 1)
		L.Insert(named, 1)
		if err := L.PCall(n+1, 0, nil); err != nil {
			if ae, ok := err.(*lua.ApiError); ok {
				if s, ok := ae.Object.(lua.LString); ok {
					if m := reComparePos.FindStringSubmatch(string(s)); m != nil {
						L.Error(lua.LString(luaMessage(m[1])), 0)
					}
				}
				L.Error(ae.Object, 0)
			}
			L.RaiseError("%s", err.Error())
		}
		return 0
	}
}

// chunkID is luaO_chunkid for a string chunk: [string "first line..."],
// with Redis's LUA_IDSIZE of 80.
func chunkID(src string) string {
	const max = 80 - len(` [string "..."] `) - 1
	l := len(src)
	nl := strings.IndexByte(src, '\n')
	if nl >= 0 {
		l = nl
	}
	if l > max {
		l = max
	}
	if nl >= 0 || l < len(src) {
		return `[string "` + src[:l] + `..."]`
	}
	return `[string "` + src + `"]`
}

// loadString is loadstring(s [, name]) with Lua's chunk names, errors and
// the script environment.
func (s *state) loadString(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	display := name
	switch {
	case strings.HasPrefix(name, "=") || strings.HasPrefix(name, "@"):
		display = name[1:]
	default:
		display = chunkID(name)
	}
	proto, err := compile(src, display)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	s.chunkSources[display] = name
	fn := L.NewFunctionFromProto(proto)
	fn.Env = s.proxy
	L.Push(fn)
	return 1
}

// Lua's luaL_checknumber takes numeric strings ("3"), gopher-lua's library
// functions do not. numArgs wraps a library function so the listed argument
// positions (all of them when none is listed) arrive as numbers.
func numArgs(f *lua.LFunction, positions ...int) *lua.LFunction {
	orig := f.GFunction
	if orig == nil {
		return f
	}
	conv := func(L *lua.LState, i int) {
		if s, ok := L.Get(i).(lua.LString); ok {
			if n, ok := str2number(string(s)); ok {
				L.Replace(i, lua.LNumber(n))
			}
		}
	}
	return &lua.LFunction{IsG: true, Env: f.Env, Upvalues: f.Upvalues, GFunction: func(L *lua.LState) int {
		top := L.GetTop()
		if len(positions) == 0 {
			for i := 1; i <= top; i++ {
				conv(L, i)
			}
		}
		for _, i := range positions {
			if i <= top {
				conv(L, i)
			}
		}
		return orig(L)
	}}
}

// numericArgs lists, per library, the functions whose number parameters
// need numArgs (nil: every parameter).
var numericArgs = map[string]map[string][]int{
	"string": {"byte": {2, 3}, "find": {3}, "gsub": {4}, "match": {3}, "rep": {2}, "sub": {2, 3}},
	"base":   {"unpack": {2, 3}, "select": {1}},
}

func (s *state) installNumericArgs(g *lua.LTable) {
	for lib, fns := range numericArgs {
		t := g
		if lib != "base" {
			t = g.RawGetString(lib).(*lua.LTable)
		}
		for name, pos := range fns {
			if f, ok := t.RawGetString(name).(*lua.LFunction); ok && pos != nil {
				t.RawSetString(name, numArgs(f, pos...))
			}
		}
	}
	m := g.RawGetString("math").(*lua.LTable)
	var names []string
	m.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LFunction); ok {
			names = append(names, k.String())
		}
	})
	for _, name := range names {
		m.RawSetString(name, numArgs(m.RawGetString(name).(*lua.LFunction)))
	}
}

// strLower and strUpper map ASCII letters only, as C's tolower/toupper do in
// the C locale; gopher-lua's follow Unicode.
func strLower(L *lua.LState) int { return mapBytes(L, 'A', 'Z', 'a'-'A') }
func strUpper(L *lua.LState) int { return mapBytes(L, 'a', 'z', 'A'-'a') }

func mapBytes(L *lua.LState, lo, hi byte, delta int) int {
	s := lvToStringArg(L, 1)
	limits.Grow(L, len(s))
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = byte(int(c) + delta)
		}
	}
	L.Push(lua.LString(b))
	return 1
}
