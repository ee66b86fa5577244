package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// startQlessSide is a buildSide that calls qlessd's QLESS (fast paths and
// all) rather than a script: the other side of a pair whose Redis side
// runs the printed script.
func startQlessSide(t *testing.T, addr string) *buildSide {
	s := &conformanceSender{a: dialResp(t, addr), b: dialResp(t, addr)}
	s.call = func(fn, now string, args []string) (respValue, error) {
		return s.a.do(append([]string{"QLESS", fn, now}, args...)...)
	}
	if v, err := s.b.do("PSUBSCRIBE", "*"); err != nil || v.Kind != '*' {
		t.Fatalf("PSUBSCRIBE on %s: %v %v", addr, v, err)
	}
	return &buildSide{s, ""}
}

// ratePair is qlessd's QLESS beside redis-server 7.0 running the printed
// script, with times counted from a base a year ahead of the real clock
// (qlessd's once-a-second housekeeping then has nothing due).
type ratePair struct {
	*buildPair
	base float64
}

func startRatePair(t *testing.T) *ratePair {
	script, sha := qless.Script(), qless.SHA()
	return &ratePair{
		buildPair: &buildPair{
			q: startQlessSide(t, StartQlessd(t, "").Addr),
			r: startBuildSide(t, StartRedis(t).Addr, script, sha),
		},
		base: float64(time.Now().Unix() + 365*86400),
	}
}

// do runs fn at base+at on both servers; they must agree. It returns
// qlessd's reply as replyText gives it.
func (p *ratePair) do(t *testing.T, at float64, fn string, args ...string) string {
	t.Helper()
	now := strconv.FormatFloat(p.base+at, 'f', -1, 64)
	q, _, diff := p.step(t, fn, now, args)
	if diff != "" {
		t.Fatalf("%s %s %v: qlessd and Redis differ: %s", fn, now, args, diff)
	}
	return replyText(q.reply)
}

// rateModel is what the sliding windows must let through: each rate's
// starts, and a job's own rates.
type rateModel struct {
	limit  map[string][2]float64 // name -> count, seconds
	starts map[string][]float64
	rates  map[string][]string // jid -> its own rates
}

func (m *rateModel) room(name string, now float64) bool {
	l, ok := m.limit[name]
	if !ok {
		return true
	}
	n := 0
	for _, s := range m.starts[name] {
		if s > now-l[1] {
			n++
		}
	}
	return float64(n) < l[0]
}

// pop takes up to count jids from waiting (in line order) as a pop at now
// must, and returns them and the jobs left waiting, in order.
func (m *rateModel) pop(waiting []string, queueRate string, now float64, count int) (took, left []string) {
	for i, jid := range waiting {
		if len(took) == count || !m.room(queueRate, now) {
			return took, append(left, waiting[i:]...)
		}
		ok := true
		for _, r := range m.rates[jid] {
			ok = ok && m.room(r, now)
		}
		if !ok {
			left = append(left, jid)
			continue
		}
		for _, r := range append([]string{queueRate}, m.rates[jid]...) {
			if _, set := m.limit[r]; set {
				m.starts[r] = append(m.starts[r], now)
			}
		}
		took = append(took, jid)
	}
	return took, left
}

// TestQlessRateWindowsMatchRedis: a queue rate of 3 starts per 2 s, and a
// job rate of 1 per 3 s on some of its jobs, over 20 pops of two at now
// advancing by half a second: qlessd's QLESS and the printed script on
// Redis 7.0 reply alike, publish alike and leave the same keyspace, and
// the jobs popped are those the sliding windows let through, in line
// order, the rest left waiting in order.
func TestQlessRateWindowsMatchRedis(t *testing.T) {
	t.Parallel()
	p := startRatePair(t)
	m := &rateModel{
		limit:  map[string][2]float64{"ql:q:q": {3, 2}, "slow": {1, 3}},
		starts: map[string][]float64{},
		rates:  map[string][]string{},
	}
	p.do(t, 0, "rate.set", "ql:q:q", "3", "2")
	p.do(t, 0, "rate.set", "slow", "1", "3")
	if got := p.do(t, 0, "rate.get", "ql:q:q"); got != `{"id":"ql:q:q","seconds":2,"count":3,"used":0}` {
		t.Fatalf("rate.get = %s", got)
	}
	var waiting []string
	for i := 1; i <= 30; i++ {
		jid := fmt.Sprintf("j%02d", i)
		args := []string{"w", "q", jid, "K", "{}", "0"}
		switch {
		case i == 9:
			// Named twice, and the queue's own too: one start each.
			args = append(args, "rates", `["slow","ql:q:q","slow"]`)
			m.rates[jid] = []string{"slow"}
		case i%4 == 1:
			args = append(args, "rates", `["slow"]`)
			m.rates[jid] = []string{"slow"}
		}
		p.do(t, float64(i)/1000-1, "put", args...)
		waiting = append(waiting, jid)
	}
	if got := p.do(t, 0, "get", "j01"); !strings.Contains(got, `"rates":["slow"]`) {
		t.Fatalf("get j01 = %s, want its rates", got)
	}
	total := 0
	for i := 0; i < 20; i++ {
		at := float64(i) * 0.5
		var want []string
		want, waiting = m.pop(waiting, "ql:q:q", p.base+at, 2)
		got := poppedJids(t, p.do(t, at, "pop", "q", "w", "2"))
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("pop %d at +%.1fs took %v, want %v", i, at, got, want)
		}
		total += len(got)
		if i%5 == 2 {
			p.do(t, at, "queues", "q")
			p.do(t, at, "queues")
			p.do(t, at, "rate.get", "ql:q:q")
			p.do(t, at, "rate.get", "slow")
			p.do(t, at, "jobs", "rated", "q")
			p.do(t, at, "jobs", "rated", "q", "1", "2")
			if got := p.do(t, at, "peek", "q", "50"); strings.Join(poppedJids(t, got), ",") != strings.Join(waiting, ",") {
				t.Fatalf("waiting after pop %d: %v, want %v", i, poppedJids(t, got), waiting)
			}
		}
	}
	// 3 starts per 2 s over 9.5 s: the windows slid (more than one
	// window's worth went out) and never let more than 3 through in one.
	if total <= 3 || total > 3*5+3 {
		t.Fatalf("%d jobs popped over 20 pops", total)
	}
	// A put again without rates drops them; a recurring job's rates go
	// to the jobs it spawns.
	p.do(t, 20, "put", "w", "q", "j29", "K", "{}", "0")
	p.do(t, 20, "recur", "q", "r1", "K", "{}", "interval", "60", "0", "rates", `["slow"]`)
	p.do(t, 20, "recur.get", "r1")
	p.do(t, 30, "pop", "q", "w", "5")
	p.do(t, 30, "queues", "q")
	p.do(t, 31, "rate.delete", "slow")
	p.do(t, 31, "rate.get", "slow")
	p.do(t, 31, "pop", "q", "w", "5")
	if d := p.diffKeyspace(t); d != "" {
		t.Fatalf("keyspace: %s", d)
	}
}

// TestQlessRateRefusals: a bad count, seconds, name or rates option is
// refused with an error naming it, before anything is written, by QLESS
// and by the printed script on Redis alike.
func TestQlessRateRefusals(t *testing.T) {
	t.Parallel()
	p := startRatePair(t)
	cases := []struct {
		fn   string
		args []string
		want string
	}{
		{"rate.set", nil, `rate.set(): Arg "name" missing`},
		{"rate.set", []string{"r"}, `rate.set(): Arg "count" not a whole number, 1 or more: nil`},
		{"rate.set", []string{"r", "0", "1"}, `rate.set(): Arg "count" not a whole number, 1 or more: 0`},
		{"rate.set", []string{"r", "1.5", "1"}, `rate.set(): Arg "count" not a whole number, 1 or more: 1.5`},
		{"rate.set", []string{"r", "ten", "1"}, `rate.set(): Arg "count" not a whole number, 1 or more: ten`},
		{"rate.set", []string{"r", "3"}, `rate.set(): Arg "seconds" not a positive number: nil`},
		{"rate.set", []string{"r", "3", "0"}, `rate.set(): Arg "seconds" not a positive number: 0`},
		{"rate.set", []string{"r", "3", "-2"}, `rate.set(): Arg "seconds" not a positive number: -2`},
		{"rate.set", []string{"r", "3", "inf"}, `rate.set(): Arg "seconds" not a positive number: inf`},
		{"rate.set", []string{"r", "3", "nan"}, `rate.set(): Arg "seconds" not a positive number: nan`},
		{"rate.get", nil, `rate.get(): Arg "name" missing`},
		{"rate.delete", nil, `rate.delete(): Arg "name" missing`},
		{"put", []string{"w", "q", "j", "K", "{}", "0", "rates", "slow"}, `Put(): Arg "rates" not a JSON array of rate names: slow`},
		{"put", []string{"w", "q", "j", "K", "{}", "0", "rates", `[1]`}, `Put(): Arg "rates" not a JSON array of rate names: [1]`},
		{"put", []string{"w", "q", "j", "K", "{}", "0", "rates", `{"a":"b"}`}, `Put(): Arg "rates" not a JSON array of rate names: {"a":"b"}`},
		{"put", []string{"w", "q", "j", "K", "{}", "0", "rates", `[""]`}, `Put(): Arg "rates" not a JSON array of rate names: [""]`},
		{"recur", []string{"q", "r", "K", "{}", "interval", "60", "0", "rates", `[`}, `Recur(): Arg "rates" not a JSON array of rate names: [`},
	}
	for _, c := range cases {
		now := strconv.FormatFloat(p.base, 'f', -1, 64)
		q, r, _ := p.step(t, c.fn, now, c.args)
		if q.reply.Kind != '-' || q.reply.Str != "ERR "+c.want {
			t.Errorf("QLESS %s %v = %v, want error %q", c.fn, c.args, q.reply, c.want)
		}
		if r.reply.Kind != '-' || !strings.Contains(r.reply.Str, c.want) {
			t.Errorf("Redis %s %v = %v, want error %q", c.fn, c.args, r.reply, c.want)
		}
		if len(q.events)+len(r.events) > 0 {
			t.Errorf("%s %v published %v / %v", c.fn, c.args, q.events, r.events)
		}
	}
	for _, s := range []*buildSide{p.q, p.r} {
		if v, err := s.a.do("DBSIZE"); err != nil || v.Int != 0 {
			t.Fatalf("DBSIZE after the refusals: %v %v, want 0", v, err)
		}
	}
}
