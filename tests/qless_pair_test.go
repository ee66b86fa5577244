package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// buildSide is one server with one build's script loaded: a command
// connection, a PSUBSCRIBE * connection, and the script's SHA1 there.
type buildSide struct {
	*conformanceSender
	sha string
}

func startBuildSide(t *testing.T, addr, script, sha string) *buildSide {
	s := &conformanceSender{a: dialResp(t, addr), b: dialResp(t, addr)}
	if v, err := s.a.do("SCRIPT", "LOAD", script); err != nil || v.Kind != '$' || v.Str != sha {
		t.Fatalf("SCRIPT LOAD on %s: %v %v (want %s)", addr, v, err, sha)
	}
	s.call = func(fn, now string, args []string) (respValue, error) {
		return s.a.do(append([]string{"EVALSHA", sha, "0", fn, now}, args...)...)
	}
	if v, err := s.b.do("PSUBSCRIBE", "*"); err != nil || v.Kind != '*' {
		t.Fatalf("PSUBSCRIBE on %s: %v %v", addr, v, err)
	}
	return &buildSide{s, sha}
}

// callOut is what one server did for one call.
type callOut struct {
	reply  respValue
	events [][2]string
}

func (s *buildSide) run(t *testing.T, fn, now string, args []string) callOut {
	reply, err := s.call(fn, now, args)
	if err != nil {
		t.Fatalf("%s %s %q: %v", fn, now, args, err)
	}
	events, err := s.sync()
	if err != nil {
		t.Fatalf("%s %s %q: sync: %v", fn, now, args, err)
	}
	return callOut{reply, events}
}

type buildPair struct{ q, r *buildSide }

// step sends one call to both servers; diff is "" when they agree.
func (p *buildPair) step(t *testing.T, fn, now string, args []string) (q, r callOut, diff string) {
	q, r = p.q.run(t, fn, now, args), p.r.run(t, fn, now, args)
	// `failed` with no group lists its groups in SMEMBERS order.
	topKeys := fn == "failed" && len(args) == 0
	if d := diffReply(q.reply, r.reply, p.q.sha, p.r.sha, topKeys); d != "" {
		return q, r, "reply: " + d
	}
	if d := diffEvents(q.events, r.events); d != "" {
		return q, r, "events: " + d
	}
	return q, r, ""
}

func (p *buildPair) flush(t *testing.T) {
	for _, s := range []*buildSide{p.q, p.r} {
		if _, err := s.a.do("FLUSHALL"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func (p *buildPair) diffKeyspace(t *testing.T) string {
	return diffKeyspaces(readKeyspace(t, p.q.a), readKeyspace(t, p.r.a))
}

// transcripts is part A: every shared conformance scenario, replayed on
// both servers, qlessd compared with redis-server (not with the transcript,
// which only b3f41c8 reproduces). The first difference of each scenario is
// its subtest's error; a summary of the kinds of difference is logged.
func (p *buildPair) transcripts(t *testing.T, files []string) {
	pass, kinds := 0, map[string]int{}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			kind, d := p.replay(t, loadScenario(t, f))
			if d == "" {
				pass++
				return
			}
			kinds[kind]++
			t.Error(d)
		})
	}
	var summary []string
	for k, n := range kinds {
		summary = append(summary, fmt.Sprintf("%4d  %s", n, k))
	}
	sort.Strings(summary)
	t.Logf("%d of %d scenarios pass; first differences:\n%s", pass, len(files), strings.Join(summary, "\n"))
}

// replay runs one scenario and returns its first difference, with a short
// kind (what differed, in which call) for the summary.
func (p *buildPair) replay(t *testing.T, sc *qlessScenario) (kind, diff string) {
	p.flush(t)
	for i, st := range sc.Steps {
		_, _, d := p.step(t, st.Fn, st.Now, st.Args)
		if d != "" {
			what, _, _ := strings.Cut(d, ":")
			if strings.Contains(d, keyOrderOnly) {
				what += ", key order only"
			}
			return what + " of " + st.Fn, fmt.Sprintf("step %d: %s %s %s: %s", i, st.Fn, st.Now, quoteArgs(st.Args), d)
		}
	}
	if d := p.diffKeyspace(t); d != "" {
		kind = "final keyspace"
		if strings.HasPrefix(d, keyOrderOnly) {
			kind += ", key order only"
		}
		return kind, "final keyspace: " + d
	}
	return "", ""
}

// random is part B: generated calls, every reply and event compared, the
// keyspaces every 500 calls and at the end, the database emptied every
// 2,500 calls. It stops at the first difference and shows the calls that
// led to it.
func (p *buildPair) random(t *testing.T, seed int64, calls int) {
	p.flush(t)
	g := newCallGen(seed)
	var last []string
	counts := map[string]int{}
	fail := func(i int, d string) {
		t.Errorf("call %d of seed %d: %s\nlast %d calls, oldest first:\n%s", i, seed, d, len(last), strings.Join(last, "\n"))
	}
	for i := 0; i < calls; i++ {
		// Start afresh now and then (the clock goes on): some states that
		// stock qless reaches, such as a lock left behind when a recurring
		// job's child jid is reused, fail every later pop of a queue.
		if i > 0 && i%2500 == 0 {
			p.flush(t)
			g.forget()
		}
		c := g.next()
		counts[c.fn]++
		q, r, d := p.step(t, c.fn, c.now, c.args)
		last = append(last, fmt.Sprintf("  #%d %s\n      qlessd: %s\n      redis:  %s", i, c, clip(q.reply), clip(r.reply)))
		if len(last) > 10 {
			last = last[1:]
		}
		if d != "" {
			fail(i, d)
			return
		}
		g.observe(c, r.reply)
		if (i+1)%keyspaceEvery() == 0 || i == calls-1 {
			if d := p.diffKeyspace(t); d != "" {
				fail(i, "keyspace after this call: "+d)
				return
			}
		}
	}
	t.Logf("%d calls agree; calls per function: %v", calls, counts)
}

// clip shortens a reply for the list of recent calls; the difference
// itself is always shown in full.
func clip(v respValue) string {
	s := v.String()
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// keyspaceEvery is how many calls go between keyspace comparisons:
// QLESS_BUILDS_KEYSPACE_EVERY (1 to find the call that diverged), else 500.
func keyspaceEvery() int {
	if n, err := strconv.Atoi(os.Getenv("QLESS_BUILDS_KEYSPACE_EVERY")); err == nil && n > 0 {
		return n
	}
	return 500
}
