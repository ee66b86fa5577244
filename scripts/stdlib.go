package scripts

import (
	"math"
	"strconv"
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// installBase replaces the base functions whose gopher-lua behaviour
// differs from Lua 5.1 in ways scripts can see.
func (s *state) installBase(g *lua.LTable) {
	L := s.L
	origToString := g.RawGetString("tostring").(*lua.LFunction)
	g.RawSetString("tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok && L.GetTop() >= 1 {
			L.Push(lua.LString(fmtNumber(float64(n))))
			return 1
		}
		L.CheckAny(1)
		L.Push(origToString)
		L.Push(L.Get(1))
		L.Call(1, 1)
		return 1
	}))
	g.RawSetString("tonumber", L.NewFunction(baseToNumber))
	g.RawSetString("unpack", L.NewFunction(baseUnpack))
	g.RawSetString("error", L.NewFunction(s.baseError))
	g.RawSetString("assert", L.NewFunction(baseAssert))
	g.RawSetString("loadstring", L.NewFunction(s.loadString))
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	g.RawSetString("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		// The Go collector is not a script's to drive; report nothing to do.
		L.Push(lua.LNumber(0))
		return 1
	}))
	s.namedCallFn = L.NewFunction(s.namedCall)
	g.RawSetString("pcall", L.NewFunction(s.pcall))
	g.RawSetString("xpcall", L.NewFunction(s.xpcall))
	origRawSet := g.RawGetString("rawset").(*lua.LFunction)
	g.RawSetString("rawset", L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok && (t == s.proxy || t == s.realG || s.readonly[t]) {
			L.Error(lua.LString(errReadonly), 0)
		}
		n := L.GetTop()
		L.Push(origRawSet)
		for i := 1; i <= n; i++ {
			L.Push(L.Get(i))
		}
		L.Call(n, 1)
		return 1
	}))
}

// baseToNumber is Lua 5.1's tonumber, with strtod's syntax on glibc.
func baseToNumber(L *lua.LState) int {
	if L.GetTop() < 1 {
		L.RaiseError("bad argument #1 to 'tonumber' (value expected)")
	}
	base := L.OptInt(2, 10)
	v := L.Get(1)
	if base == 10 {
		switch x := v.(type) {
		case lua.LNumber:
			L.Push(x)
			return 1
		case lua.LString:
			if f, ok := str2number(string(x)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	if base < 2 || base > 36 {
		L.RaiseError("bad argument #2 to 'tonumber' (base out of range)")
	}
	str := strings.ToLower(strings.TrimLeft(lvToStringArg(L, 1), " \t\n\v\f\r"))
	neg := false
	if strings.HasPrefix(str, "-") || strings.HasPrefix(str, "+") {
		neg = str[0] == '-'
		str = str[1:]
	}
	if base == 16 {
		str = strings.TrimPrefix(str, "0x")
	}
	end := 0
	for end < len(str) {
		d := digitVal(str[end])
		if d < 0 || d >= base {
			break
		}
		end++
	}
	if end == 0 || strings.TrimRight(str[end:], " \t\n\v\f\r") != "" {
		L.Push(lua.LNil)
		return 1
	}
	n, err := strconv.ParseUint(str[:end], base, 64)
	if err != nil {
		n = math.MaxUint64
	}
	f := float64(n)
	if neg {
		f = float64(-n)
	}
	L.Push(lua.LNumber(f))
	return 1
}

func digitVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	}
	return -1
}

func lvToStringArg(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return fmtNumber(float64(v))
	}
	L.ArgError(n, "string expected, got "+typeNameOf(L, n))
	return ""
}

// baseError is Lua 5.1's error: a number counts as a message and becomes
// one with its position, unless level is 0, and level counts as luaL_where
// counts.
func (s *state) baseError(L *lua.LState) int {
	v := L.Get(1)
	level := L.OptInt(2, 1)
	if n, ok := v.(lua.LNumber); ok && level > 0 {
		v = lua.LString(fmtNumber(float64(n)))
	}
	if str, ok := v.(lua.LString); ok {
		if level > 0 {
			str = lua.LString(s.where(L, level) + string(str))
		}
		v = str
		s.ownText = str
	}
	L.Error(v, 0)
	return 0
}

// baseAssert is Lua 5.1's assert: the message may be a number, and it is
// raised as luaL_error raises, positioned by the caller.
func baseAssert(L *lua.LState) int {
	L.CheckAny(1)
	if lua.LVAsBool(L.Get(1)) {
		return L.GetTop()
	}
	msg := "assertion failed!"
	switch v := L.Get(2).(type) {
	case lua.LString:
		msg = string(v)
	case lua.LNumber:
		msg = fmtNumber(float64(v))
	default:
		if v != lua.LNil {
			L.ArgError(2, "string expected, got "+typeNameOf(L, 2))
		}
	}
	L.RaiseError("%s", msg)
	return 0
}

func (s *state) installMath(m *lua.LTable) {
	L := s.L
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	m.RawSetString("random", L.NewFunction(func(L *lua.LState) int {
		r := s.rng.float()
		switch L.GetTop() {
		case 0:
			L.Push(lua.LNumber(r))
		case 1:
			u := int(int32(L.CheckNumber(1)))
			if u < 1 {
				L.RaiseError("bad argument #1 to 'random' (interval is empty)")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
		case 2:
			l := int(int32(L.CheckNumber(1)))
			u := int(int32(L.CheckNumber(2)))
			if l > u {
				L.RaiseError("bad argument #2 to 'random' (interval is empty)")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
		default:
			L.RaiseError("wrong number of arguments")
		}
		return 1
	}))
	m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		s.rng.seed(int32(int64(L.CheckNumber(1))))
		return 0
	}))
}

func (s *state) installString(str *lua.LTable) {
	L := s.L
	str.RawSetString("format", L.NewFunction(strFormat))
	str.RawSetString("char", L.NewFunction(strChar))
	str.RawSetString("byte", L.NewFunction(strByte))
	str.RawSetString("rep", L.NewFunction(strRep))
	str.RawSetString("lower", L.NewFunction(strLower))
	str.RawSetString("upper", L.NewFunction(strUpper))
	str.RawSetString("find", L.NewFunction(strFind))
	str.RawSetString("match", L.NewFunction(strMatch))
	str.RawSetString("gmatch", L.NewFunction(strGmatch))
	str.RawSetString("gsub", L.NewFunction(strGsub))
	str.RawSetString("gfind", str.RawGetString("gmatch"))
}

func (s *state) installTable(t *lua.LTable) {
	L := s.L
	t.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	t.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		fn := L.CheckFunction(2)
		n := tb.Len()
		for i := 1; i <= n; i++ {
			L.Push(fn)
			L.Push(lua.LNumber(i))
			L.Push(tb.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	t.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		tb := L.CheckTable(1)
		fn := L.CheckFunction(2)
		k, v := tb.Next(lua.LNil)
		for k != lua.LNil {
			L.Push(fn)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
			k, v = tb.Next(k)
		}
		return 0
	}))
	t.RawSetString("concat", L.NewFunction(tableConcat))
	t.RawSetString("remove", L.NewFunction(tableRemove))
	t.RawSetString("insert", L.NewFunction(tableInsert))
	t.RawSetString("sort", L.NewFunction(tableSort(L.NewFunction(sortArray), s.namedCallFn)))
}

// tableConcat is table.concat with numbers rendered as "%.14g". What it
// appends counts against the script's memory ceiling before it is
// appended, and SCRIPT KILL is polled.
func tableConcat(L *lua.LState) int {
	tb := L.CheckTable(1)
	sep := ""
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		sep = lvToStringArg(L, 2)
	}
	i := L.OptInt(3, 1)
	j := tb.Len()
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		j = int(L.CheckNumber(4))
	}
	var b strings.Builder
	pending := 0
	for k := i; k <= j; k++ {
		if (k-i)%limits.Every == limits.Every-1 {
			limits.Poll(L)
		}
		var piece string
		switch v := tb.RawGetInt(k).(type) {
		case lua.LString:
			piece = string(v)
		case lua.LNumber:
			piece = fmtNumber(float64(v))
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if pending += len(piece) + len(sep); pending >= growStep {
			limits.Grow(L, pending)
			pending = 0
		}
		b.WriteString(piece)
		if k != j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// growStep is how many bytes a built-in may build before it declares them
// to the memory ceiling (limits.Grow); one piece larger is declared alone.
const growStep = 64 << 10

// tableRemove is Lua 5.1's table.remove: nothing at all (not nil) is
// returned when the position is outside the array, which qless.lua's
// "tonumber(table.remove(ARGV, 1))" relies on to report a missing argument.
func tableRemove(L *lua.LState) int {
	tb := L.CheckTable(1)
	e := tb.Len()
	pos := e
	if L.GetTop() >= 2 {
		pos = int(L.CheckNumber(2))
	}
	if pos < 1 || pos > e {
		return 0
	}
	v := tb.RawGetInt(pos)
	for ; pos < e; pos++ {
		tb.RawSetInt(pos, tb.RawGetInt(pos+1))
	}
	tb.RawSetInt(e, lua.LNil)
	L.Push(v)
	return 1
}
