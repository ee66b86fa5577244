package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// TestQlessRecurPausePortable runs recur.pause, recur.resume and recur.run
// (the dashboard's pause, resume and run now) through the printed script
// on qlessd and on redis-server 7.0: replies and keyspace must agree. A
// paused recurring job spawns nothing however late the clock, keeps its
// template and its interval changes, spawns one job on recur.run, and
// resumes at the next run its schedule still has to come.
func TestQlessRecurPausePortable(t *testing.T) {
	t.Parallel()
	script, sha := qless.Script(), qless.SHA()
	p := &buildPair{
		q: startBuildSide(t, StartQlessd(t, "").Addr, script, sha),
		r: startBuildSide(t, StartRedis(t).Addr, script, sha),
	}
	base := time.Now().Unix() + 365*86400
	at := func(d int64) string { return strconv.FormatInt(base+d, 10) }
	steps := []struct {
		fn   string
		args []string
		want string // in the reply's text (an error's without "ERR ")
		at   string
	}{
		{"recur", []string{"rq", "r", "K", `{"a":1}`, "interval", "60", "0"}, "r", at(0)},
		{"peek", []string{"rq", "10"}, `"jid":"r-1"`, at(0)},
		{"recur.pause", []string{"r"}, "1", at(1)},
		{"recur.pause", []string{"r"}, "1", at(1)},
		{"queues", []string{"rq"}, `"recurring":1`, at(1)},
		{"recur.update", []string{"r", "interval", "100"}, "1", at(2)},
		{"peek", []string{"rq", "10"}, `"jid":"r-1"`, at(1000)},
		{"length", []string{"rq"}, "1", at(1000)},
		{"recur.run", []string{"r"}, "r-2", at(1000)},
		{"length", []string{"rq"}, "2", at(1000)},
		{"recur.get", []string{"r"}, `"count":2`, at(1000)},
		// Next run was base+100 (interval changed from 60 to 100); at
		// base+1050 the first one to come is base+1100.
		{"recur.resume", []string{"r"}, "1", at(1050)},
		{"recur.resume", []string{"r"}, "1", at(1050)},
		{"peek", []string{"rq", "10"}, `"jid":"r-2"`, at(1099)},
		{"length", []string{"rq"}, "2", at(1099)},
		{"peek", []string{"rq", "10"}, `"jid":"r-3"`, at(1100)},
		{"recur.pause", []string{"nope"}, "recur.pause(): No recurring job nope", at(1100)},
		{"recur.resume", []string{"nope"}, "recur.resume(): No recurring job nope", at(1100)},
		{"recur.run", []string{"nope"}, "recur.run(): No recurring job nope", at(1100)},
		{"recur.run", nil, "Recurring(): no jid provided", at(1100)},
	}
	for _, s := range steps {
		q, _, diff := p.step(t, s.fn, s.at, s.args)
		if diff != "" {
			t.Fatalf("%s %v: qlessd and Redis differ: %s", s.fn, s.args, diff)
		}
		got := q.reply.Str
		if q.reply.Kind == ':' {
			got = strconv.FormatInt(q.reply.Int, 10)
		}
		if q.reply.Kind == '-' {
			got = strings.TrimPrefix(got, "ERR ")
		}
		if !strings.Contains(got, s.want) {
			t.Fatalf("%s %v at %s = %q, want %q", s.fn, s.args, s.at, got, s.want)
		}
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace: %s", d)
	}
}
