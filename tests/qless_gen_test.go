package tests

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
)

// A generator of random qless API calls, shaped like the calls of the
// shared conformance scenarios: small name pools so that calls interact, a
// clock that mostly crawls and sometimes jumps (locks and completed jobs
// expire), and about 10% deliberately invalid calls.

var (
	genQueues   = []string{"qa", "qb", "qc"}
	genWorkers  = []string{"w1", "w2", "w3", "w4"}
	genGroups   = []string{"g-timeout", "g-io", "g-bug"}
	genTags     = []string{"red", "green", "blue", "urgent"}
	genClasses  = []string{"Klass.A", "Klass.B"}
	genRecurs   = []string{"rec-a", "rec-b"}
	genMessages = []string{"boom", "timed out after 30s", "échec", "disk full: /var/lib/x", "KeyError: 'x'", `said "no"`}
	// Data keys of varied lengths and bytes: Lua's table order, which cjson
	// writes, depends on the keys' hashes and on insertion order.
	genDataKeys = []string{"a", "b", "n", "id", "to", "url", "name", "path", "user", "items", "meta",
		"flag", "x", "y", "retry", "ts", "host", "nested", "alpha", "beta", "gamma", "long_key_name", "é", "k1", "k2"}
	genOtherData = []string{"[]", "[1,2,3]", "42", `"just a string"`, `{ "spaced" : [ 1 , 2 ] }`, `{"a":1}`}
	genBadNumber = []string{"ten", "1x", "", "5 5", "--5", "abc", "1e"}
	genBadJSON   = []string{`{"a":1}}`, `[1,2`, `{`, ``, `not json`, `{'a': 1}`, `{"a":`, `false`, `null`}
)

// genCall is one generated call. kinds marks each argument so that an
// invalid variant can break an argument of the right sort: 'j' jid, 'n'
// number, 'J' JSON, 's' subcommand, 0 anything else.
type genCall struct {
	fn, now  string
	args     []string
	kinds    []byte
	optNames []string // option names the call takes in trailing pairs
	invalid  string
}

func (c *genCall) add(kind byte, args ...string) {
	for _, a := range args {
		c.args = append(c.args, a)
		c.kinds = append(c.kinds, kind)
	}
}

// opt appends an option name and its value.
func (c *genCall) opt(name string, kind byte, value string) {
	c.add(0, name)
	c.add(kind, value)
}

func (c *genCall) String() string {
	s := "EVALSHA SHA 0 " + quoteArgs(append([]string{c.fn, c.now}, c.args...))
	if c.invalid != "" {
		s += " (invalid: " + c.invalid + ")"
	}
	return s
}

type heldJob struct{ worker, queue string }

type callGen struct {
	rng      *rand.Rand
	us       int64              // the clock, in microseconds
	held     map[string]heldJob // jobs popped, as the pop replies said
	children []string           // jids of recurring jobs' children seen
}

// forget drops what the generator learnt, when the database is emptied.
func (g *callGen) forget() {
	g.held, g.children = map[string]heldJob{}, nil
}

func newCallGen(seed int64) *callGen {
	rng := rand.New(rand.NewSource(seed))
	us := (1700000000+rng.Int63n(86400))*1e6 + rng.Int63n(1e6)
	return &callGen{rng: rng, us: us, held: map[string]heldJob{}}
}

// genFns weights the hot calls but covers all 37 API functions.
var genFns = []struct {
	fn     string
	weight int
	build  func(*callGen, *genCall)
}{
	{"put", 18, (*callGen).put}, {"pop", 12, (*callGen).pop}, {"complete", 9, (*callGen).complete},
	{"heartbeat", 7, (*callGen).heartbeat}, {"fail", 4, (*callGen).fail}, {"retry", 4, (*callGen).retry},
	{"get", 3, (*callGen).oneJid}, {"multiget", 2, (*callGen).jids}, {"peek", 3, (*callGen).peek},
	{"jobs", 3, (*callGen).jobs}, {"tag", 3, (*callGen).tag}, {"track", 3, (*callGen).track},
	{"config.set", 3, (*callGen).configSet}, {"config.get", 1, (*callGen).configGet},
	{"config.unset", 1, (*callGen).configUnset}, {"cancel", 3, (*callGen).jids},
	{"depends", 3, (*callGen).depends}, {"recur", 2, (*callGen).recur}, {"recur.get", 1, (*callGen).oneRecur},
	{"recur.update", 2, (*callGen).recurUpdate}, {"recur.tag", 1, (*callGen).recurTag},
	{"recur.untag", 1, (*callGen).recurTag}, {"unrecur", 1, (*callGen).oneRecur},
	{"queues", 2, (*callGen).maybeQueue}, {"failed", 2, (*callGen).failed}, {"workers", 2, (*callGen).maybeWorker},
	{"priority", 2, (*callGen).priorityCall}, {"requeue", 2, (*callGen).put}, {"length", 1, (*callGen).oneQueue},
	{"log", 2, (*callGen).log}, {"stats", 1, (*callGen).stats}, {"unfail", 2, (*callGen).unfail},
	{"timeout", 1, (*callGen).timeout}, {"pause", 1, (*callGen).oneQueue}, {"unpause", 2, (*callGen).queues},
	{"worker.deregister", 1, (*callGen).workers}, {"queue.forget", 1, (*callGen).oneQueue},
}

func (g *callGen) next() *genCall {
	total := 0
	for _, f := range genFns {
		total += f.weight
	}
	r := g.rng.Intn(total)
	i := 0
	for r >= genFns[i].weight {
		r -= genFns[i].weight
		i++
	}
	// A call on a running job needs a popped one: pop first, mostly.
	if len(g.held) == 0 && !g.chance(4) && strings.Contains(" complete heartbeat fail retry timeout ", " "+genFns[i].fn+" ") {
		for genFns[i].fn != "pop" {
			i = (i + 1) % len(genFns)
		}
	}
	c := &genCall{fn: genFns[i].fn, now: g.tick()}
	genFns[i].build(g, c)
	if g.rng.Intn(10) == 0 {
		g.invalidate(c)
	}
	return c
}

// tick advances the clock and writes it with 0, 3 or 6 decimals, rounding
// up so that it never goes backwards.
func (g *callGen) tick() string {
	var d int64
	switch r := g.rng.Float64(); {
	case r < 0.10:
	case r < 0.75:
		d = g.rng.Int63n(3e6)
	case r < 0.90:
		d = 3e6 + g.rng.Int63n(37e6)
	case r < 0.993:
		d = 40e6 + g.rng.Int63n(360e6) // locks expire
	default:
		d = 3600e6 + g.rng.Int63n(2*86400e6) // day bins, job and worker expiry
	}
	g.us += d
	return g.stamp(&g.us)
}

func (g *callGen) stamp(us *int64) string {
	dec := []int{0, 3, 6}[g.rng.Intn(3)]
	unit := int64(1)
	for i := dec; i < 6; i++ {
		unit *= 10
	}
	*us = (*us + unit - 1) / unit * unit
	s := strconv.FormatInt(*us/1e6, 10)
	if dec > 0 {
		s += fmt.Sprintf(".%06d", *us%1e6)[:dec+1]
	}
	return s
}

func (g *callGen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *callGen) chance(n int) bool { return g.rng.Intn(n) == 0 }

func (g *callGen) jid() string {
	if len(g.children) > 0 && g.chance(5) {
		return g.pick(g.children...)
	}
	return fmt.Sprintf("j%02d", 1+g.rng.Intn(15))
}

// heldJob picks a popped job with its worker and queue most of the time,
// so that the hot calls mostly succeed.
func (g *callGen) heldJob() (jid, worker, queue string) {
	jid, worker, queue = g.jid(), g.pick(genWorkers...), g.pick(genQueues...)
	if len(g.held) == 0 || g.chance(8) {
		return
	}
	jids := make([]string, 0, len(g.held))
	for j := range g.held {
		jids = append(jids, j)
	}
	sort.Strings(jids)
	jid = g.pick(jids...)
	h := g.held[jid]
	if !g.chance(12) {
		worker = h.worker
	}
	if !g.chance(12) {
		queue = h.queue
	}
	return
}

// observe learns from redis-server's reply which jobs are now held.
func (g *callGen) observe(c *genCall, reply respValue) {
	switch c.fn {
	case "pop", "peek":
		var jobs []struct{ Jid, Worker, Queue string }
		if json.Unmarshal([]byte(reply.Str), &jobs) != nil {
			return
		}
		for _, j := range jobs {
			if c.fn == "pop" {
				g.held[j.Jid] = heldJob{j.Worker, j.Queue}
			}
			if strings.HasPrefix(j.Jid, "rec-") && !contains(g.children, j.Jid) {
				g.children = append(g.children, j.Jid)
				if len(g.children) > 12 {
					g.children = g.children[1:]
				}
			}
		}
	case "complete", "fail", "retry", "cancel", "timeout", "put", "requeue":
		for _, a := range c.args {
			delete(g.held, a)
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// invalidate breaks one argument of c, or drops some, or rarely the clock.
func (g *callGen) invalidate(c *genCall) {
	if g.chance(20) {
		c.invalid, c.now = "now", g.pick("abc", "")
		return
	}
	var kinds []string
	if len(c.args) > 0 {
		kinds = append(kinds, "missing", "missing")
	}
	for k, name := range map[byte]string{'n': "number", 'J': "json", 'j': "jid", 's': "sub"} {
		if strings.IndexByte(string(c.kinds), k) >= 0 {
			kinds = append(kinds, name)
		}
	}
	if len(c.optNames) > 0 {
		kinds = append(kinds, "odd")
	}
	if len(kinds) == 0 {
		return
	}
	sort.Strings(kinds) // map order must not change the seeded sequence
	c.invalid = g.pick(kinds...)
	replace := func(kind byte, with []string) {
		var at []int
		for i, k := range c.kinds {
			if k == kind {
				at = append(at, i)
			}
		}
		c.args[at[g.rng.Intn(len(at))]] = g.pick(with...)
	}
	switch c.invalid {
	case "missing":
		n := g.rng.Intn(len(c.args))
		c.args, c.kinds = c.args[:n], c.kinds[:n]
	case "number":
		replace('n', genBadNumber)
	case "json":
		replace('J', genBadJSON)
	case "jid":
		replace('j', []string{"no-such-job", ""})
	case "sub":
		replace('s', []string{"bogus", "ADD", "", "On"})
	case "odd":
		c.add(0, g.pick(c.optNames...))
	}
}
