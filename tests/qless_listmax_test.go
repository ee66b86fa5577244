package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// scriptSuffix is what Redis adds to an error a script raises; QLESS, a
// command, replies with the error alone.
var scriptSuffix = regexp.MustCompile(` script: SHA, on @user_script:\d+\.$`)

// TestQlessListMax: a list argument (tags, depends, throttles, the lists of
// tag and depends) one entry past qless.ListMax is refused by QLESS on
// qlessd and by the printed script on redis-server 7.0 with the same error,
// naming the argument and the limit, and nothing is written; a list of
// exactly ListMax entries is taken, with the same keyspace on both.
func TestQlessListMax(t *testing.T) {
	t.Parallel()
	script, sha := qless.Script(), qless.SHA()
	q := startBuildSide(t, StartQlessd(t, "").Addr, script, sha)
	q.call = func(fn, now string, args []string) (respValue, error) {
		return q.a.do(append([]string{"QLESS", fn, now}, args...)...)
	}
	p := &buildPair{q: q, r: startBuildSide(t, StartRedis(t).Addr, script, sha)}
	// A clock a year ahead, as in TestQlessBeyondPortable: qlessd's own
	// expiry loop must not find anything due.
	now := strconv.FormatInt(time.Now().Unix()+365*86400, 10)
	step := func(fn string, args ...string) string {
		t.Helper()
		qo, ro, diff := p.step(t, fn, now, args)
		if diff != "" && scriptSuffix.ReplaceAllString(canonReply(ro.reply, sha, false, false), "") !=
			canonReply(qo.reply, sha, false, false) {
			t.Fatalf("%s %.80q: qlessd and Redis differ: %s", fn, args, diff)
		}
		if qo.reply.Kind == '-' {
			return strings.TrimPrefix(qo.reply.Str, "ERR ")
		}
		return qo.reply.Str
	}
	list := func(prefix string, n int) []string {
		l := make([]string, n)
		for i := range l {
			l[i] = prefix + strconv.Itoa(i)
		}
		return l
	}
	jsonList := func(l []string) string { return `["` + strings.Join(l, `","`) + `"]` }
	over := qless.ListMax + 1
	overTags, overJSON := list("t", over), jsonList(list("t", over))

	step("put", "w", "q", "j0", "K", "{}", "0", "tags", `["a"]`)
	step("put", "w", "q", "dep", "K", "{}", "0")
	step("put", "w", "q", "jd", "K", "{}", "0", "depends", `["dep"]`)
	step("recur", "q", "r1", "K", "{}", "interval", "60", "0", "tags", `["a"]`)
	step("put", "w", "cq", "jc", "K", "{}", "0")
	step("pop", "cq", "w", "1")
	before := readKeyspace(t, p.q.a)
	if d := diffKeyspaces(before, readKeyspace(t, p.r.a)); d != "" {
		t.Fatalf("keyspace before: %s", d)
	}

	past := " has more than " + strconv.Itoa(qless.ListMax) + " entries: " + strconv.Itoa(over)
	for _, c := range []struct {
		fn   string
		args []string
		want string
	}{
		{"put", []string{"w", "q", "new", "K", "{}", "0", "tags", overJSON}, `Put(): Arg "tags"`},
		{"put", []string{"w", "q", "j0", "K", "{}", "0", "tags", overJSON}, `Put(): Arg "tags"`},
		{"put", []string{"w", "q", "new", "K", "{}", "0", "depends", overJSON}, `Put(): Arg "depends"`},
		{"put", []string{"w", "q", "new", "K", "{}", "0", "throttles", overJSON}, `Put(): Arg "throttles"`},
		{"requeue", []string{"w", "q", "j0", "K", "{}", "0", "tags", overJSON}, `Put(): Arg "tags"`},
		{"recur", []string{"q", "r2", "K", "{}", "interval", "60", "0", "tags", overJSON}, `Recur(): Arg "tags"`},
		{"recur", []string{"q", "r1", "K", "{}", "interval", "60", "0", "throttles", overJSON}, `Recur(): Arg "throttles"`},
		{"tag", append([]string{"add", "j0"}, overTags...), `Tag(): Arg "tags"`},
		{"tag", append([]string{"remove", "j0"}, overTags...), `Tag(): Arg "tags"`},
		{"recur.tag", append([]string{"r1"}, overTags...), `Tag(): Arg "tags"`},
		{"recur.untag", append([]string{"r1"}, overTags...), `Untag(): Arg "tags"`},
		{"depends", append([]string{"jd", "on"}, overTags...), `Depends(): Arg "jids"`},
		{"depends", append([]string{"jd", "off"}, overTags...), `Depends(): Arg "jids"`},
		{"complete", []string{"jc", "w", "cq", "{}", "next", "q", "depends", overJSON}, `Complete(): Arg "depends"`},
	} {
		if got := step(c.fn, c.args...); got != c.want+past {
			t.Errorf("%s %.60q = %.120q, want %q", c.fn, c.args, got, c.want+past)
		}
	}
	if d := diffKeyspaces(before, readKeyspace(t, p.q.a)); d != "" {
		t.Fatalf("refused calls changed qlessd's keyspace: %s", d)
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace after the refused calls: %s", d)
	}

	// Exactly the limit: a new job (qlessd's Go fast path), a job put
	// again (the Lua), tags added to a job.
	atJSON := jsonList(list("t", qless.ListMax))
	for _, c := range []struct {
		fn   string
		args []string
		want string
	}{
		{"put", []string{"w", "q", "new", "K", "{}", "0", "tags", atJSON}, "new"},
		{"put", []string{"w", "q", "j0", "K", "{}", "0", "tags", atJSON}, "j0"},
		{"tag", append([]string{"add", "dep"}, list("u", qless.ListMax)...), `["u0","u1"`},
	} {
		if got := step(c.fn, c.args...); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %.60q = %.120q, want %q", c.fn, c.args, got, c.want)
		}
	}
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace after the calls at the limit: %s", d)
	}
}
