// Package cronsched parses the cron schedules of qless recurring jobs (a
// five-field expression in an IANA timezone) and computes their runs, for
// the Lua library's natives (qless/cron.go) and the dashboard alike.
package cronsched

import (
	"errors"
	"math"
	"strings"
	"time"
	_ "time/tzdata" // IANA timezones whatever the host has installed

	"github.com/robfig/cron/v3"
)

// parser reads five-field expressions (minute hour day-of-month month
// day-of-week, with ranges, steps, lists and month and day names) and the
// @yearly ... @hourly shortcuts.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule is a parsed expression in its timezone.
type Schedule struct{ spec *cron.SpecSchedule }

// Parse parses expr to run in the IANA timezone tz; its errors are the
// texts recur replies with. Every due cron recur is parsed again at each
// pop, so parsed schedules are kept (see memo.go).
func Parse(expr, tz string) (Schedule, error) {
	if s, ok := parsed.get(expr, tz); ok {
		return s, nil
	}
	s, err := parse(expr, tz)
	if err == nil {
		parsed.put(expr, tz, s)
	}
	return s, err
}

func parse(expr, tz string) (Schedule, error) {
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return Schedule{}, errors.New(`Recur(): Arg "cron" must not name a timezone; the timezone is its own argument: ` + expr)
	}
	if strings.HasPrefix(expr, "@every") {
		return Schedule{}, errors.New(`Recur(): Arg "cron" @every is not a calendar schedule; use interval: ` + expr)
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return Schedule{}, errors.New(`Recur(): Arg "cron" not a cron expression (` + err.Error() + `): ` + expr)
	}
	// Local is the server's own zone and "" is UTC by another name: a
	// schedule names its zone.
	if tz == "" || tz == "Local" {
		return Schedule{}, errors.New(`Recur(): Arg "timezone" unknown: ` + tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return Schedule{}, errors.New(`Recur(): Arg "timezone" unknown: ` + tz)
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return Schedule{}, errors.New(`Recur(): Arg "cron" not a cron expression: ` + expr)
	}
	spec.Location = loc
	return Schedule{spec}, nil
}

// Location is the schedule's timezone.
func (s Schedule) Location() *time.Location { return s.spec.Location }

// Never is the score of a cron recur that has no run left: the last
// second of year 9999.
const Never = 253402300799

// Next is the first run strictly after t (unix seconds, with a fraction),
// in unix seconds; false when the expression never matches (within the
// parser's five years).
func (s Schedule) Next(t float64) (float64, bool) {
	sec, frac := math.Modf(t)
	n := s.spec.Next(time.Unix(int64(sec), int64(frac*1e9)))
	if n.IsZero() {
		return 0, false
	}
	return float64(n.Unix()), true
}

// Runs lists the first n runs from t on (t itself included when it is one).
func (s Schedule) Runs(t float64, n int) []float64 {
	var out []float64
	at := t - 1
	for len(out) < n {
		next, ok := s.Next(at)
		if !ok {
			break
		}
		out = append(out, next)
		at = next
	}
	return out
}

// maxWalk bounds the runs one Due call steps through, so a pop after a
// long gap (a schedule every minute and a year) stays short: the runs left
// are spawned by later pops.
const maxWalk = 100000

// Due lists the runs a recurring job owes at now, first at score (its next
// run), at most limit of them; with backlog > 0 only the latest backlog
// runs due. It returns them and the run that follows the last.
func (s Schedule) Due(score, now float64, backlog, limit int) ([]float64, float64) {
	if backlog > 0 {
		score = s.catchUp(score, now, backlog)
	}
	var due []float64
	next := score
	for steps := 0; next <= now && steps < maxWalk; steps++ {
		if backlog <= 0 && len(due) == limit {
			return due, next
		}
		due = append(due, next)
		if backlog > 0 && len(due) > backlog {
			due = due[1:]
		}
		n, ok := s.Next(next)
		if !ok {
			n = Never // past the parser's horizon: where no pop reaches
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

// catchUp is where Due starts with a backlog: the first run of the
// shortest window before now (a minute, doubled) holding backlog runs, or
// score when no window after it does. Due then steps through about twice
// backlog runs, not every run since score.
func (s Schedule) catchUp(score, now float64, backlog int) float64 {
	for w := 60.0; now-w > score; w *= 2 {
		from, n := now-w, 0
		for t := from; n < backlog; n++ {
			next, ok := s.Next(t)
			if !ok || next > now {
				break
			}
			t = next
		}
		if n >= backlog {
			first, _ := s.Next(from)
			return first
		}
	}
	return score
}
