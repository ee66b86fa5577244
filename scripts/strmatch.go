package scripts

import (
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// string.find, match, gmatch and gsub over the matcher of pattern.go, with
// Lua 5.1's arguments, results and errors.

func strFind(L *lua.LState) int  { return findAux(L, true) }
func strMatch(L *lua.LState) int { return findAux(L, false) }

// findAux is str_find_aux.
func findAux(L *lua.LState, find bool) int {
	s := clua.CheckString(L, 1)
	p := clua.CheckString(L, 2)
	init := posRelative(clua.OptInteger(L, 3, 1), int64(len(s))) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(cString(p), patternSpecs)) {
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(int(init) + i + 1))
			L.Push(lua.LNumber(int(init) + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := newMatchState(L, s, p)
	anchor := ms.at(0) == '^'
	start := 0
	if anchor {
		start = 1
	}
	for s1 := int(init); ; s1++ {
		ms.level = 0
		if e := ms.match(s1, start); e >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(-1, 0) + 2
			}
			return ms.pushCaptures(s1, e)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// cString is s up to its first NUL, as C's string functions read it.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// strGmatch is gmatch: an iterator over the matches, each found when the
// loop asks for it ('^' is an ordinary character here, as in Lua 5.1).
func strGmatch(L *lua.LState) int {
	s := clua.CheckString(L, 1)
	p := clua.CheckString(L, 2)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := newMatchState(L, s, p)
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++ // an empty match: move on at least one position
				}
				return ms.pushCaptures(src, e)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

// strGsub is gsub, building its result once, declared to the script's
// memory ceiling as it grows.
func strGsub(L *lua.LState) int {
	src := clua.CheckString(L, 1)
	p := clua.CheckString(L, 2)
	repl := L.Get(3)
	maxN := int32(clua.OptInteger(L, 4, int64(len(src))+1))
	switch repl.(type) {
	case lua.LNumber, lua.LString, *lua.LFunction, *lua.LTable:
	default:
		clua.ArgError(L, 3, "string/function/table expected")
	}
	ms := newMatchState(L, src, p)
	anchor := ms.at(0) == '^'
	start := 0
	if anchor {
		start = 1
	}
	g := gsubState{ms: ms, repl: repl}
	if rs, ok := repl.(lua.LString); ok {
		g.replText = string(rs)
	} else if rn, ok := repl.(lua.LNumber); ok {
		g.replText = fmtNumber(float64(rn))
	}
	s, n := 0, int32(0)
	for n < maxN {
		ms.level = 0
		e := ms.match(s, start)
		if e >= 0 {
			n++
			g.addValue(s, e)
		}
		if e > s {
			s = e
		} else if s < len(src) {
			g.add(src[s : s+1])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	g.add(src[s:])
	L.Push(lua.LString(g.out.String()))
	L.Push(lua.LNumber(n))
	return 2
}

type gsubState struct {
	ms       *matchState
	repl     lua.LValue
	replText string // a string or number replacement, as text
	out      strings.Builder
	pending  int // bytes added since the last declaration to the ceiling
}

func (g *gsubState) add(s string) {
	if g.pending += len(s); g.pending >= growStep {
		limits.Grow(g.ms.L, g.pending)
		g.pending = 0
	}
	g.out.WriteString(s)
}

// addValue is add_value: the replacement for the match src[s:e].
func (g *gsubState) addValue(s, e int) {
	ms, L := g.ms, g.ms.L
	var v lua.LValue
	switch r := g.repl.(type) {
	case *lua.LFunction:
		L.Push(r)
		n := ms.pushCaptures(s, e)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		v = L.GetTable(r, ms.captureValue(0, s, e))
	default:
		g.addText(s, e)
		return
	}
	switch x := v.(type) {
	case *lua.LNilType:
		g.add(ms.src[s:e])
	case lua.LBool:
		if !x {
			g.add(ms.src[s:e])
			return
		}
		clua.Raise(L, "invalid replacement value (a %s)", clua.TypeName(v))
	case lua.LString:
		g.add(string(x))
	case lua.LNumber:
		g.add(fmtNumber(float64(x)))
	default:
		clua.Raise(L, "invalid replacement value (a %s)", clua.TypeName(v))
	}
}

// addText is add_s: a replacement string, %0-%9 standing for the match
// and its captures, '%' before anything else for that character (a '%'
// ending the string adds the NUL that ends Lua's C string).
func (g *gsubState) addText(s, e int) {
	r, ms := g.replText, g.ms
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != patternEsc {
			j := i
			for j < len(r) && r[j] != patternEsc {
				j++
			}
			g.add(r[i:j])
			i = j - 1
			continue
		}
		i++
		var d byte
		if i < len(r) {
			d = r[i]
		}
		switch {
		case !isDigit(d):
			g.add(string([]byte{d}))
		case d == '0':
			g.add(ms.src[s:e])
		default:
			switch v := ms.captureValue(int(d-'1'), s, e).(type) {
			case lua.LString:
				g.add(string(v))
			case lua.LNumber:
				g.add(fmtNumber(float64(v)))
			}
		}
	}
}
