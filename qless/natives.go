package qless

import (
	"github.com/qlessd/qlessd/scripts/luatable"
	lua "github.com/yuin/gopher-lua"
)

// The library's chunk gets a table of Go helpers (base.lua's `native`):
// what gopher-lua cannot tell the Lua, such as the order Redis's Lua 5.1
// gives a table's keys, which is the order cjson writes them in.
func natives(L *lua.LState) []lua.LValue {
	t := L.NewTable()
	t.RawSetString("order", L.NewFunction(nativeOrder))
	t.RawSetString("history_json", L.NewFunction(nativeHistoryJSON))
	t.RawSetString("count", L.NewFunction(nativeCount))
	t.RawSetString("cron_next", L.NewFunction(nativeCronNext))
	t.RawSetString("cron_due", L.NewFunction(nativeCronDue))
	return []lua.LValue{t}
}

// nativeCount(queue, event, n) counts n jobs of event (a JobEvent's name)
// in queue, as the fast paths count theirs. It never fails the call: a
// count is not worth an error in a job's life.
func nativeCount(L *lua.LState) int {
	q, ok := L.Get(1).(lua.LString)
	n, _ := L.Get(3).(lua.LNumber)
	if !ok || n < 1 {
		return 0
	}
	name := lua.LVAsString(L.Get(2))
	for e := range NumJobEvents {
		if e.String() == name {
			jobCounts.add(string(q), e, uint64(n))
			return 0
		}
	}
	return 0
}

// nativeOrder(shape, t) returns the keys of t with a value, in the order
// Redis's Lua visits the table qless builds as shape describes: shape[1]
// is the hash size its constructor asks for (0 for {}), shape[2..] the keys
// in the order qless sets them; a key whose value in t is nil was set to
// nil.
func nativeOrder(L *lua.LState) int {
	shape, t := L.CheckTable(1), L.CheckTable(2)
	n := shape.Len()
	hint := luatable.ConstructorHint(int(lua.LVAsNumber(shape.RawGetInt(1))))
	keys := make([]string, 0, n)
	isNil := make([]bool, 0, n)
	for i := 2; i <= n; i++ {
		k := lua.LVAsString(shape.RawGetInt(i))
		keys = append(keys, k)
		isNil = append(isNil, t.RawGetString(k) == lua.LNil)
	}
	var idx [32]int
	order := luatable.OrderWithNils(hint, keys, isNil, idx[:0])
	out := L.CreateTable(len(order), 0)
	for _, i := range order {
		out.Append(lua.LString(keys[i]))
	}
	L.Push(out)
	return 1
}

// nativeHistoryJSON(entries, extra) returns the text of the history array
// in a job object, from the text of the job's history entries, with extra
// (the text of one more entry's object), when given, at the end; nil when
// an entry needs the Lua's tables (see appendHistoryDict).
func nativeHistoryJSON(L *lua.LState) int {
	entries := L.CheckTable(1)
	extra := L.OptString(2, "")
	n := entries.Len()
	if n == 0 && extra == "" {
		L.Push(lua.LString("{}"))
		return 1
	}
	buf := make([]byte, 0, 64*(n+1))
	buf = append(buf, '[')
	for i := 1; i <= n; i++ {
		s, ok := entries.RawGetInt(i).(lua.LString)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		if i > 1 {
			buf = append(buf, ',')
		}
		if buf, ok = appendHistoryDict(buf, string(s)); !ok {
			L.Push(lua.LNil)
			return 1
		}
	}
	if extra != "" {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, extra...)
	}
	L.Push(lua.LString(append(buf, ']')))
	return 1
}
