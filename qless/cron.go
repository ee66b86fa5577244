package qless

import (
	"github.com/qlessd/qlessd/internal/cronsched"
	lua "github.com/yuin/gopher-lua"
)

// Cron schedules (recur ... cron <expression> <timezone>) are computed in
// Go (internal/cronsched): a script on Redis has no cron parser, so the
// printed script refuses them and the library asks these natives for
// every run time.

// nativeCronNext(expr, tz, after) returns the first run of the schedule
// after after, or nil and the error text when expr or tz is refused or the
// expression never matches.
func nativeCronNext(L *lua.LState) int {
	s, err := cronsched.Parse(L.CheckString(1), L.CheckString(2))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	n, ok := s.Next(float64(L.CheckNumber(3)))
	if !ok {
		L.Push(lua.LNil)
		L.Push(lua.LString(`Recur(): Arg "cron" never matches: ` + L.CheckString(1)))
		return 2
	}
	L.Push(lua.LNumber(n))
	return 1
}

// nativeCronDue(expr, tz, score, now, backlog, limit) returns the list of
// run times to spawn and the recurring job's next score (see
// cronsched.Schedule.Due); nil when the schedule no longer parses (never:
// recur checked it).
func nativeCronDue(L *lua.LState) int {
	s, err := cronsched.Parse(L.CheckString(1), L.CheckString(2))
	if err != nil {
		L.Push(lua.LNil)
		return 1
	}
	due, next := s.Due(float64(L.CheckNumber(3)), float64(L.CheckNumber(4)),
		int(L.CheckNumber(5)), int(L.CheckNumber(6)))
	t := L.CreateTable(len(due), 0)
	for _, d := range due {
		t.Append(lua.LNumber(d))
	}
	L.Push(t)
	L.Push(lua.LNumber(next))
	return 2
}
