package qless

import (
	"errors"
	"math"
	"strings"
	"time"
	_ "time/tzdata" // IANA timezones whatever the host has installed

	"github.com/robfig/cron/v3"
	lua "github.com/yuin/gopher-lua"
)

// Cron schedules (recur ... cron <expression> <timezone>) are computed
// here: a script on Redis has no cron parser, so the printed script
// refuses them and the library asks these natives for every run time.

// cronParser reads five-field expressions (minute hour day-of-month month
// day-of-week, with ranges, steps, lists and month and day names) and the
// @yearly ... @hourly shortcuts.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// cronSchedule parses expr to run in the IANA timezone tz; its errors are
// the texts recur replies with.
func cronSchedule(expr, tz string) (*cron.SpecSchedule, error) {
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, errors.New(`Recur(): Arg "cron" must not name a timezone; the timezone is its own argument: ` + expr)
	}
	if strings.HasPrefix(expr, "@every") {
		return nil, errors.New(`Recur(): Arg "cron" @every is not a calendar schedule; use interval: ` + expr)
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, errors.New(`Recur(): Arg "cron" not a cron expression (` + err.Error() + `): ` + expr)
	}
	// Local is the server's own zone and "" is UTC by another name: a
	// schedule names its zone.
	if tz == "" || tz == "Local" {
		return nil, errors.New(`Recur(): Arg "timezone" unknown: ` + tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, errors.New(`Recur(): Arg "timezone" unknown: ` + tz)
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return nil, errors.New(`Recur(): Arg "cron" not a cron expression: ` + expr)
	}
	spec.Location = loc
	return spec, nil
}

// cronNever is the score of a cron recur that has no run left: the
// last second of year 9999.
const cronNever = 253402300799

// unixTime is qless's now (seconds, with a fraction) as a time.
func unixTime(t float64) time.Time {
	sec, frac := math.Modf(t)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// cronNext is the first run strictly after t, in unix seconds; false when
// the expression never matches (within the parser's five years).
func cronNext(s *cron.SpecSchedule, t float64) (float64, bool) {
	n := s.Next(unixTime(t))
	if n.IsZero() {
		return 0, false
	}
	return float64(n.Unix()), true
}

// nativeCronNext(expr, tz, after) returns the first run of the schedule
// after after, or nil and the error text when expr or tz is refused or the
// expression never matches.
func nativeCronNext(L *lua.LState) int {
	s, err := cronSchedule(L.CheckString(1), L.CheckString(2))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	n, ok := cronNext(s, float64(L.CheckNumber(3)))
	if !ok {
		L.Push(lua.LNil)
		L.Push(lua.LString(`Recur(): Arg "cron" never matches: ` + L.CheckString(1)))
		return 2
	}
	L.Push(lua.LNumber(n))
	return 1
}

// cronDue lists the runs a recurring job owes at now, first at score (its
// next run), at most limit of them; with backlog > 0 only the latest
// backlog runs due. It returns them and the run that follows the last.
func cronDue(s *cron.SpecSchedule, score, now float64, backlog, limit int) ([]float64, float64) {
	var due []float64
	next := score
	for next <= now {
		if backlog <= 0 && len(due) == limit {
			return due, next
		}
		due = append(due, next)
		if backlog > 0 && len(due) > backlog {
			due = due[1:]
		}
		n, ok := cronNext(s, next)
		if !ok {
			// Past the parser's horizon: park it where no pop reaches.
			n = cronNever
		}
		next = n
	}
	if len(due) > limit {
		// The latest of the owed runs are kept; the rest are spawned by
		// later pops, from the first one left out.
		next = due[limit]
		due = due[:limit]
	}
	return due, next
}

// nativeCronDue(expr, tz, score, now, backlog, limit) returns the list of
// run times to spawn and the recurring job's next score (see cronDue); nil
// when the schedule no longer parses (never: recur checked it).
func nativeCronDue(L *lua.LState) int {
	s, err := cronSchedule(L.CheckString(1), L.CheckString(2))
	if err != nil {
		L.Push(lua.LNil)
		return 1
	}
	due, next := cronDue(s, float64(L.CheckNumber(3)), float64(L.CheckNumber(4)),
		int(L.CheckNumber(5)), int(L.CheckNumber(6)))
	t := L.CreateTable(len(due), 0)
	for _, d := range due {
		t.Append(lua.LNumber(d))
	}
	L.Push(t)
	L.Push(lua.LNumber(next))
	return 2
}
