package tests

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// throttleStep is one call of a throttle sequence and what its reply must
// be: want is "=" and the exact text, "jids=" and the jids a pop or peek
// returns in order (comma separated), "!" and text the reply must not
// contain, or else text the reply contains (an
// error's without "ERR "; an array's elements are joined by commas).
type throttleStep struct {
	fn   string
	args []string
	want string
	at   string // now, when not the default
}

// replyText is a reply as throttleStep.want reads it.
func replyText(v respValue) string {
	switch v.Kind {
	case ':':
		return strconv.FormatInt(v.Int, 10)
	case '-':
		return strings.TrimPrefix(v.Str, "ERR ")
	case '*':
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = e.Str
		}
		return strings.Join(parts, ",")
	}
	if v.Nil {
		return "(nil)"
	}
	return v.Str
}

// checkThrottleReply fails the test when got is not what s wants.
func checkThrottleReply(t *testing.T, s throttleStep, got string) {
	t.Helper()
	switch {
	case strings.HasPrefix(s.want, "jids="):
		var jobs []struct{ Jid string }
		if got != "{}" {
			if err := json.Unmarshal([]byte(got), &jobs); err != nil {
				t.Fatalf("%s %v = %q: %v", s.fn, s.args, got, err)
			}
		}
		var jids []string
		for _, j := range jobs {
			jids = append(jids, j.Jid)
		}
		if strings.Join(jids, ",") != s.want[len("jids="):] {
			t.Fatalf("%s %v popped %v, want %s", s.fn, s.args, jids, s.want)
		}
	case strings.HasPrefix(s.want, "!"):
		if strings.Contains(got, s.want[1:]) {
			t.Fatalf("%s %v = %q, want no %q in it", s.fn, s.args, got, s.want[1:])
		}
	case strings.HasPrefix(s.want, "="):
		if got != s.want[1:] {
			t.Fatalf("%s %v = %q, want %q", s.fn, s.args, got, s.want[1:])
		}
	case !strings.Contains(got, s.want):
		t.Fatalf("%s %v = %q, want %q in it", s.fn, s.args, got, s.want)
	}
}

// runThrottleSteps runs steps through the printed script on qlessd and on
// redis-server 7.0: replies and events must agree and be as listed, and
// so must the keyspaces after.
func runThrottleSteps(t *testing.T, steps []throttleStep) *buildPair {
	script, sha := qless.Script(), qless.SHA()
	p := &buildPair{
		q: startBuildSide(t, StartQlessd(t, "").Addr, script, sha),
		r: startBuildSide(t, StartRedis(t).Addr, script, sha),
	}
	// The steps' times run a year ahead of the real clock (1700000000 in
	// a step is that moment): qlessd also expires jobs past their TTL once
	// a second by the real clock, and a job put at a time long past expired
	// there whenever that loop came round on a slow machine, not when the
	// step that says so ran (Redis counted the expiry in 2023's stats,
	// qlessd in today's).
	shift := time.Now().Unix() + 365*86400 - 1700000000
	for _, s := range steps {
		at := "1700000000"
		if s.at != "" {
			at = s.at
		}
		n, err := strconv.ParseInt(at, 10, 64)
		if err != nil {
			t.Fatalf("step %s: time %q", s.fn, at)
		}
		q, _, diff := p.step(t, s.fn, strconv.FormatInt(n+shift, 10), s.args)
		if diff != "" {
			t.Fatalf("%s %v: qlessd and Redis differ: %s", s.fn, s.args, diff)
		}
		checkThrottleReply(t, s, replyText(q.reply))
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace: %s", d)
	}
	return p
}

// TestQlessThrottleFunctions: each throttle function's normal use and
// errors, and a throttled job's way through pop, complete, retry, cancel
// and fail (qless-core's throttle branch tests, as this library does them).
func TestQlessThrottleFunctions(t *testing.T) {
	t.Parallel()
	runThrottleSteps(t, []throttleStep{
		{"throttle.get", []string{"tid"}, `={"id":"tid","maximum":0}`, ""},
		{"throttle.set", nil, "Throttle(): no tid provided", ""},
		{"throttle.set", []string{"tid", "x"}, `throttle.set(): Arg "max" not a whole number, 0 or more: x`, ""},
		{"throttle.set", []string{"tid", "-1"}, `throttle.set(): Arg "max" not a whole number, 0 or more: -1`, ""},
		{"throttle.set", []string{"tid", "1", "1.5"}, `throttle.set(): Arg "expiration" not a whole number, 0 or more: 1.5`, ""},
		{"throttle.get", nil, "Throttle(): no tid provided", ""},
		{"throttle.locks", nil, "Throttle(): no tid provided", ""},
		{"throttle.pending", nil, "Throttle(): no tid provided", ""},
		{"throttle.ttl", nil, "Throttle(): no tid provided", ""},
		{"throttle.release", nil, "Throttle(): no tid provided", ""},
		{"throttle.delete", nil, "Throttle(): no tid provided", ""},
		{"throttle.set", []string{"tid", "1"}, "=(nil)", ""},
		{"throttle.get", []string{"tid"}, `={"id":"tid","maximum":1}`, ""},
		{"throttle.ttl", []string{"tid"}, "=-1", ""},
		{"throttle.ttl", []string{"none"}, "=-2", ""},
		{"throttle.locks", []string{"none"}, "=", ""},
		{"put", []string{"w", "q", "j5", "K", "{}", "0", "throttles", `{"a":1}`}, `Put(): Arg "throttles" not a JSON array of throttle ids: {"a":1}`, ""},
		{"put", []string{"w", "q", "j5", "K", "{}", "0", "throttles", `[1]`}, `Put(): Arg "throttles" not a JSON array of throttle ids: [1]`, ""},
		{"put", []string{"w", "q", "j5", "K", "{}", "0", "throttles", `nope`}, `Put(): Arg "throttles" not a JSON array of throttle ids: nope`, ""},
		{"get", []string{"j5"}, "=(nil)", ""},
		{"put", []string{"w", "q", "j1", "K", "{}", "0", "throttles", `["tid"]`}, "=j1", "1700000001"},
		{"put", []string{"w", "q", "j2", "K", "{}", "0", "throttles", `["tid"]`}, "=j2", "1700000002"},
		{"put", []string{"w", "q", "j3", "K", "{}", "0", "throttles", `["tid"]`}, "=j3", "1700000003"},
		{"put", []string{"w", "q", "j4", "K", "{}", "0", "throttles", `[]`}, "=j4", "1700000004"},
		// j2 and j3 wait for tid; pop takes j4 in their place.
		{"pop", []string{"q", "w", "3"}, "jids=j1,j4", "1700000005"},
		{"throttle.locks", []string{"tid"}, "=j1", ""},
		{"throttle.pending", []string{"tid"}, "=j2,j3", ""},
		{"jobs", []string{"throttled", "q"}, "=j2,j3", ""},
		{"queues", []string{"q"}, `"throttled":2`, "1700000005"},
		{"get", []string{"j2"}, `"state":"throttled"`, ""},
		{"get", []string{"j2"}, `"throttles":["tid"]`, ""},
		{"get", []string{"j4"}, `!throttles`, ""},
		{"multiget", []string{"j1", "j2", "j3"}, `"throttles":["tid"]`, ""},
		{"peek", []string{"q", "10"}, "jids=", "1700000005"},
		{"complete", []string{"j1", "w", "q", "{}"}, "=complete", "1700000006"},
		{"throttle.locks", []string{"tid"}, "=", ""},
		{"throttle.pending", []string{"tid"}, "=j3", ""},
		{"jobs", []string{"throttled", "q"}, "=j3", ""},
		{"peek", []string{"q", "10"}, "jids=j2", "1700000006"},
		{"pop", []string{"q", "w", "5"}, "jids=j2", "1700000007"},
		// A retry gives the lock up: j3 is next in line, j2 waits.
		{"retry", []string{"j2", "q", "w", "0"}, "=4", "1700000008"},
		{"throttle.pending", []string{"tid"}, "=", ""},
		{"pop", []string{"q", "w", "5"}, "jids=j3", "1700000009"},
		{"throttle.pending", []string{"tid"}, "=j2", ""},
		{"cancel", []string{"j2"}, "=j2", "1700000010"},
		{"throttle.pending", []string{"tid"}, "=", ""},
		{"jobs", []string{"throttled", "q"}, "=", ""},
		{"queues", []string{"q"}, `"running":2`, "1700000010"},
		{"queues", []string{"q"}, `!throttled`, "1700000010"},
		{"fail", []string{"j3", "w", "grp", "msg", "{}"}, "=j3", "1700000011"},
		{"throttle.locks", []string{"tid"}, "=", ""},
		{"throttle.delete", []string{"tid"}, "=(nil)", ""},
		{"throttle.get", []string{"tid"}, `={"id":"tid","maximum":0}`, ""},
		// A throttle never set has no limit, but its locks are kept.
		{"put", []string{"w", "q", "u1", "K", "{}", "0", "throttles", `["free","tid"]`}, "=u1", "1700000012"},
		{"pop", []string{"q", "w", "1"}, `"throttles":["free","tid"]`, "1700000013"},
		{"track", []string{"track", "u1"}, "=1", "1700000013"},
		{"track", nil, `"throttles":["free","tid"]`, "1700000013"},
		{"throttle.locks", []string{"free"}, "=u1", ""},
		{"get", []string{"u1"}, `"state":"running"`, ""},
		{"complete", []string{"u1", "w", "q", "{}", "next", "q2"}, "=waiting", "1700000014"},
		{"throttle.locks", []string{"free"}, "=", ""},
	})
}

// TestQlessThrottleRelease: throttle.release, timeout, release and a put
// again each let a lock go, and the next job in line goes back to work.
func TestQlessThrottleRelease(t *testing.T) {
	t.Parallel()
	runThrottleSteps(t, []throttleStep{
		{"throttle.set", []string{"tr", "1"}, "=(nil)", ""},
		{"put", []string{"w", "rq", "r1", "K", "{}", "0", "throttles", `["tr"]`}, "=r1", "1700000001"},
		{"put", []string{"w", "rq", "r2", "K", "{}", "0", "throttles", `["tr"]`}, "=r2", "1700000002"},
		{"pop", []string{"rq", "w", "2"}, "jids=r1", "1700000003"},
		// A job waiting for tr that is released from it goes back to work.
		{"throttle.release", []string{"tr", "r2"}, "=(nil)", ""},
		{"get", []string{"r2"}, `"state":"waiting"`, ""},
		{"peek", []string{"rq", "5"}, "jids=r2", "1700000004"},
		{"pop", []string{"rq", "w", "2"}, "jids=", "1700000005"},
		{"throttle.pending", []string{"tr"}, "=r2", ""},
		{"throttle.release", []string{"tr", "r1", "nope"}, "=(nil)", ""},
		{"throttle.locks", []string{"tr"}, "=", ""},
		{"get", []string{"r1"}, `"state":"running"`, ""},
		{"pop", []string{"rq", "w2", "2"}, "jids=r2", "1700000006"},
		// timeout gives r2's lock up; it comes back first (as qless's timeout).
		{"put", []string{"w", "rq", "r3", "K", "{}", "0", "throttles", `["tr"]`}, "=r3", "1700000007"},
		{"get", []string{"r3"}, `"state":"throttled"`, ""},
		{"timeout", []string{"r2"}, "=(nil)", "1700000008"},
		{"throttle.locks", []string{"tr"}, "=", ""},
		{"peek", []string{"rq", "5"}, "jids=r2,r3", "1700000008"},
		{"pop", []string{"rq", "w", "5"}, "jids=r2", "1700000009"},
		// release (qlessd's own) too.
		{"release", []string{"r2", "w"}, "=waiting", "1700000010"},
		{"pop", []string{"rq", "w", "1"}, "jids=r3", "1700000011"},
		// A put again of a running job lets its lock go.
		{"put", []string{"w", "other", "r3", "K", "{}", "0"}, "=r3", "1700000012"},
		{"throttle.locks", []string{"tr"}, "=", ""},
		{"get", []string{"r3"}, `"queue":"other"`, ""},
		{"pop", []string{"rq", "w", "5"}, "jids=r2", "1700000013"},
		{"throttle.locks", []string{"tr"}, "=r2", ""},
		// A job waiting for a throttle past its TTL is removed, its place too.
		{"put", []string{"w", "rq", "r4", "K", "{}", "0", "ttl", "5", "throttles", `["tr"]`}, "=r4", "1700000014"},
		{"throttle.pending", []string{"tr"}, "=r4", ""},
		{"peek", []string{"rq", "5"}, "jids=", "1700000020"},
		{"get", []string{"r4"}, "=(nil)", ""},
		{"throttle.pending", []string{"tr"}, "=", ""},
		{"jobs", []string{"throttled", "rq"}, "=", ""},
		// A new priority moves a waiting job up the line.
		{"put", []string{"w", "rq", "r5", "K", "{}", "0", "throttles", `["tr"]`}, "=r5", "1700000021"},
		{"put", []string{"w", "rq", "r6", "K", "{}", "0", "throttles", `["tr"]`}, "=r6", "1700000022"},
		{"throttle.pending", []string{"tr"}, "=r5,r6", ""},
		{"priority", []string{"r6", "5"}, "=5", ""},
		{"throttle.pending", []string{"tr"}, "=r6,r5", ""},
		{"complete", []string{"r2", "w", "rq", "{}"}, "=complete", "1700000023"},
		{"pop", []string{"rq", "w", "5"}, "jids=r6", "1700000024"},
	})
}

// TestQlessQueueThrottle: a queue's own throttle (ql:q:<queue>) limits
// its running jobs; jobs put while it is full wait for it, the others
// stay in the work set; raising the limit or deleting it lets them go.
func TestQlessQueueThrottle(t *testing.T) {
	t.Parallel()
	runThrottleSteps(t, []throttleStep{
		{"queue.throttle.get", []string{"qq"}, `={"id":"ql:q:qq","maximum":0}`, ""},
		{"queue.throttle.get", nil, `queue.throttle.get(): Arg "queue" missing`, ""},
		{"queue.throttle.set", nil, `queue.throttle.set(): Arg "queue" missing`, ""},
		{"queue.throttle.set", []string{"qq", "x"}, `queue.throttle.set(): Arg "max" not a whole number, 0 or more: x`, ""},
		{"queue.throttle.set", []string{"qq", "1"}, "=(nil)", ""},
		{"queue.throttle.get", []string{"qq"}, `={"id":"ql:q:qq","maximum":1}`, ""},
		{"put", []string{"w", "qq", "q1", "K", "{}", "0"}, "=q1", "1700000001"},
		{"put", []string{"w", "qq", "q2", "K", "{}", "0"}, "=q2", "1700000002"},
		{"pop", []string{"qq", "w", "5"}, "jids=q1", "1700000003"},
		{"queues", []string{"qq"}, `"waiting":1`, "1700000003"},
		{"put", []string{"w", "qq", "q3", "K", "{}", "0"}, "=q3", "1700000004"},
		{"jobs", []string{"throttled", "qq"}, "=q3", ""},
		{"throttle.locks", []string{"ql:q:qq"}, "=q1", ""},
		{"complete", []string{"q1", "w", "qq", "{}"}, "=complete", "1700000005"},
		{"get", []string{"q3"}, `"state":"waiting"`, ""},
		{"pop", []string{"qq", "w", "5"}, "jids=q2", "1700000006"},
		{"put", []string{"w", "qq", "q4", "K", "{}", "0"}, "=q4", "1700000007"},
		{"queue.throttle.set", []string{"qq", "2"}, "=(nil)", ""},
		{"get", []string{"q4"}, `"state":"waiting"`, ""},
		{"pop", []string{"qq", "w", "5"}, "jids=q3", "1700000008"},
		{"throttle.delete", []string{"ql:q:qq"}, "=(nil)", ""},
		{"pop", []string{"qq", "w", "5"}, "jids=q4", "1700000009"},
		{"complete", []string{"q2", "w", "qq", "{}"}, "=complete", "1700000010"},
		{"throttle.locks", []string{"ql:q:qq"}, "=q3", ""},
		{"cancel", []string{"q3", "q4"}, "=q3,q4", "1700000011"},
		{"throttle.locks", []string{"ql:q:qq"}, "=", ""},
	})
}

// TestQlessThrottleExpiration: throttle.set's expiration sets the hash's
// TTL, and a later set without one keeps it. TTLs are read on each server
// alone (a second may pass between the two).
func TestQlessThrottleExpiration(t *testing.T) {
	t.Parallel()
	p := runThrottleSteps(t, []throttleStep{
		{"throttle.set", []string{"te", "2", "1000"}, "=(nil)", ""},
		{"throttle.set", []string{"te", "3"}, "=(nil)", ""},
		{"throttle.get", []string{"te"}, `={"id":"te","maximum":3}`, ""},
	})
	for _, side := range []*buildSide{p.q, p.r} {
		out := side.run(t, "throttle.ttl", "1700000000", []string{"te"})
		if out.reply.Kind != ':' || out.reply.Int < 990 || out.reply.Int > 1000 {
			t.Fatalf("throttle.ttl te = %+v, want about 1000", out.reply)
		}
	}
}
