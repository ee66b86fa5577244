package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// TestQlessBeyondPortable runs qlessd's additions that need no server
// support (release, queue capacity) through the printed script on qlessd
// (where puts take the Go fast path until a capacity is set) and on
// redis-server 7.0: replies, events and the keyspace must agree, and the
// replies must be the ones listed.
func TestQlessBeyondPortable(t *testing.T) {
	t.Parallel()
	script, sha := qless.Script(), qless.SHA()
	p := &buildPair{
		q: startBuildSide(t, StartQlessd(t, "").Addr, script, sha),
		r: startBuildSide(t, StartRedis(t).Addr, script, sha),
	}
	// The calls' clock is a year ahead of the real one: qlessd also
	// expires jobs past their TTL once a second by the real clock, and a
	// job put at a time long past would expire there whenever that loop
	// came round on a slow machine, not only when a call says so.
	base := time.Now().Unix() + 365*86400
	now, later := strconv.FormatInt(base, 10), strconv.FormatInt(base+20, 10)
	steps := []struct {
		fn   string
		args []string
		want string // in the reply's text (an error's without "ERR ")
		at   string // now, when not the default
	}{
		{"queue.capacity.get", []string{"cq"}, "0", ""},
		{"queue.capacity.set", []string{"cq", "2"}, "2", ""},
		{"queue.capacity.get", []string{"cq"}, "2", ""},
		{"put", []string{"w", "cq", "a", "K", "{}", "0"}, "a", ""},
		{"put", []string{"w", "cq", "b", "K", "{}", "0", "priority", "5"}, "b", ""},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "Put(): queue cq is full (2 jobs)", ""},
		{"put", []string{"w", "cq", "a", "K", `{"again":1}`, "0"}, "a", ""},
		{"put", []string{"w", "other", "c", "K", "{}", "0"}, "c", ""},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "Put(): queue cq is full (2 jobs)", ""},
		{"pop", []string{"cq", "w1", "1"}, `[{"jid":"b"`, ""},
		{"release", []string{"a", "w1"}, "Release(): Job a is not currently running: waiting", ""},
		{"release", []string{"b", "w2"}, "Release(): Job b has been given to another worker: w1", ""},
		{"release", []string{"b", "w1", "-1"}, `Release(): Arg "delay" not a number, 0 or more: -1`, ""},
		{"release", []string{"nope", "w1"}, "Release(): Job nope does not exist", ""},
		{"release", []string{"b", "w1"}, "waiting", ""},
		{"pop", []string{"cq", "w1", "1"}, `[{"jid":"b"`, ""},
		{"release", []string{"b", "w1", "30"}, "scheduled", ""},
		{"get", []string{"b"}, `{"jid":"b","retries":5`, ""},
		{"queue.capacity.set", []string{"cq", "x"}, `queue.capacity.set(): Arg "max" not a whole number, 0 or more: x`, ""},
		{"queue.capacity.set", []string{"cq", "0"}, "0", ""},
		{"put", []string{"w", "cq", "c", "K", "{}", "0"}, "c", ""},
		// TTL: t1 expires before the pop, t2 does not, t3 has none; t4's
		// TTL is dropped by a put again without one.
		{"put", []string{"w", "tq", "t1", "K", "{}", "0", "ttl", "10", "tags", `["x"]`}, "t1", ""},
		{"put", []string{"w", "tq", "t2", "K", "{}", "0", "ttl", "100"}, "t2", ""},
		{"put", []string{"w", "tq", "t3", "K", "{}", "0"}, "t3", ""},
		{"put", []string{"w", "tq", "t4", "K", "{}", "5", "ttl", "10"}, "t4", ""},
		{"put", []string{"w", "tq", "t4", "K", "{}", "0"}, "t4", ""},
		{"put", []string{"w", "tq", "t5", "K", "{}", "0", "ttl", "0"}, `Put(): Arg "ttl" not a positive number: 0`, ""},
		{"stats", []string{"tq", now}, `"failures":0,"retries":0,"failed":0,"wait"`, ""},
		{"pop", []string{"tq", "w1", "5"}, `{"jid":"t2"`, later},
		{"get", []string{"t1"}, "", later},
		{"tag", []string{"get", "x", "0", "10"}, `"total":0`, later},
		{"stats", []string{"tq", now}, `"expired":1`, later},
	}
	for _, s := range steps {
		at := now
		if s.at != "" {
			at = s.at
		}
		q, _, diff := p.step(t, s.fn, at, s.args)
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
			t.Fatalf("%s %v = %q, want %q", s.fn, s.args, got, s.want)
		}
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace: %s", d)
	}
}
