package tests

import (
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/qless"
)

// TestQlessBeyondPortable runs qlessd's additions that need no server
// support (release, queue capacity) through the printed script on qlessd
// (where puts take the Go fast path until a capacity is set) and on
// redis-server 7.0: replies, events and the keyspace must agree, and the
// replies must be the ones listed.
func TestQlessBeyondPortable(t *testing.T) {
	script, sha := qless.Script(), qless.SHA()
	p := &buildPair{
		q: startBuildSide(t, StartQlessd(t, "").Addr, script, sha),
		r: startBuildSide(t, StartRedis(t).Addr, script, sha),
	}
	now := "1700000000"
	steps := []struct {
		fn   string
		args []string
		want string // the reply's text, "ERR ..." for an error (a prefix)
	}{
		{"queue.capacity.get", []string{"cq"}, "0"},
		{"queue.capacity.set", []string{"cq", "2"}, "2"},
		{"queue.capacity.get", []string{"cq"}, "2"},
		{"put", []string{"w", "cq", "a", "K", "{}", "0"}, "a"},
		{"put", []string{"w", "cq", "b", "K", "{}", "0", "priority", "5"}, "b"},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "Put(): queue cq is full (2 jobs)"},
		{"put", []string{"w", "cq", "a", "K", `{"again":1}`, "0"}, "a"},
		{"put", []string{"w", "other", "c", "K", "{}", "0"}, "c"},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "Put(): queue cq is full (2 jobs)"},
		{"pop", []string{"cq", "w1", "1"}, `[{"jid":"b"`},
		{"release", []string{"a", "w1"}, "Release(): Job a is not currently running: waiting"},
		{"release", []string{"b", "w2"}, "Release(): Job b has been given to another worker: w1"},
		{"release", []string{"b", "w1", "-1"}, `Release(): Arg "delay" not a number, 0 or more: -1`},
		{"release", []string{"nope", "w1"}, "Release(): Job nope does not exist"},
		{"release", []string{"b", "w1"}, "waiting"},
		{"pop", []string{"cq", "w1", "1"}, `[{"jid":"b"`},
		{"release", []string{"b", "w1", "30"}, "scheduled"},
		{"get", []string{"b"}, `{"jid":"b","retries":5`},
		{"queue.capacity.set", []string{"cq", "x"}, `queue.capacity.set(): Arg "max" not a whole number, 0 or more: x`},
		{"queue.capacity.set", []string{"cq", "0"}, "0"},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "c"},
	}
	for _, s := range steps {
		q, _, diff := p.step(t, s.fn, now, s.args)
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
		if !strings.HasPrefix(got, s.want) {
			t.Fatalf("%s %v = %q, want %q", s.fn, s.args, got, s.want)
		}
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace: %s", d)
	}
}
