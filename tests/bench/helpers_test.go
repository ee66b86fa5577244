package main

import (
	"bufio"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJobDataIs100BytesAndCarriesItsTime(t *testing.T) {
	before := time.Now()
	d := jobData()
	if len(d) != 100 {
		t.Fatalf("job data is %d bytes: %s", len(d), d)
	}
	at, ok := dataTime(d)
	if !ok || at.Before(before.Add(-time.Millisecond)) || at.After(time.Now()) {
		t.Fatalf("dataTime(%s) = %v, %v", d, at, ok)
	}
}

func TestParsePop(t *testing.T) {
	for _, empty := range []string{"{}", "[]"} {
		if jobs, err := parsePop(reply{kind: '$', str: empty}); err != nil || len(jobs) != 0 {
			t.Fatalf("%s: %v %v", empty, jobs, err)
		}
	}
	jobs, err := parsePop(reply{kind: '$', str: `[{"jid":"a","data":"{\"t\":1,\"x\":2}","queue":"q"},{"jid":"b","data":"{}"}]`})
	if err != nil || len(jobs) != 2 || jobs[0].Jid != "a" || jobs[1].Jid != "b" || jobs[0].data() != `{"t":1,"x":2}` {
		t.Fatalf("got %+v, %v", jobs, err)
	}
	// Nested values, brackets inside strings and spacing do not confuse it.
	jobs, err = parsePop(reply{kind: '$', str: ` [ {"tags":{},"history":[{"q":"x]}","when":1.5e3}],"jid":"c","data":"{\"t\":7}","failure":{"a":[1,{"b":"}"}]},"ok":true} ] `})
	if err != nil || len(jobs) != 1 || jobs[0].Jid != "c" || jobs[0].data() != `{"t":7}` {
		t.Fatalf("got %+v, %v", jobs, err)
	}
	for _, bad := range []string{"complete", `[{"jid":"a"}`, `[{"jid":"a"}]x`, `[1]`, `[{"jid":}]`, `[{"jid":"a" "data":"b"}]`, `[{"jid":"a}]`} {
		if _, err := parsePop(reply{kind: '$', str: bad}); err == nil {
			t.Fatalf("%s parsed as jobs", bad)
		}
	}
}

func TestPercentiles(t *testing.T) {
	var lat []time.Duration
	for i := 1000; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	var r result
	r.setLatency(lat)
	if r.P50Ms != 500 || r.P99Ms != 990 || r.P999Ms != 999 {
		t.Fatalf("p50 %v p99 %v p99.9 %v", r.P50Ms, r.P99Ms, r.P999Ms)
	}
}

func TestRatiosCompareTheSameScript(t *testing.T) {
	rs := []*result{
		{Pass: "everysec", Workload: "put", Concurrency: 8, Server: "redis", Way: "qless.lua", JobsPerSec: 100},
		{Pass: "everysec", Workload: "put", Concurrency: 8, Server: "redis", Way: "ours", JobsPerSec: 50},
		{Pass: "everysec", Workload: "put", Concurrency: 8, Server: "qlessd", Way: "ours", JobsPerSec: 25},
		{Pass: "everysec", Workload: "put", Concurrency: 8, Server: "qlessd", Way: "native", JobsPerSec: 200},
		{Pass: "always", Workload: "put", Concurrency: 8, Server: "qlessd", Way: "qless.lua", JobsPerSec: 10},
	}
	setRatios(rs)
	if rs[2].Ratio == nil || *rs[2].Ratio != 0.5 || rs[2].RatioAgainst != "redis/ours" {
		t.Fatalf("ours: %v %s", rs[2].Ratio, rs[2].RatioAgainst)
	}
	if rs[3].Ratio == nil || *rs[3].Ratio != 2 || rs[3].RatioAgainst != "redis/qless.lua" {
		t.Fatalf("native: %v %s", rs[3].Ratio, rs[3].RatioAgainst)
	}
	if rs[4].Ratio != nil || rs[0].Ratio != nil {
		t.Fatal("a ratio without a matching Redis line, or on a Redis line")
	}
}

// PING runs once per server, whichever way runs first there; its lines
// compare with each other.
func TestPingRatio(t *testing.T) {
	rs := []*result{
		{Pass: "everysec", Workload: "ping", Concurrency: 50, Server: "redis", Way: pingWay, JobsPerSec: 100},
		{Pass: "everysec", Workload: "ping", Concurrency: 50, Server: "qlessd", Way: pingWay, JobsPerSec: 120},
	}
	setRatios(rs)
	if rs[1].Ratio == nil || *rs[1].Ratio != 1.2 || rs[1].RatioAgainst != "redis/"+pingWay {
		t.Fatalf("ping: %v %s", rs[1].Ratio, rs[1].RatioAgainst)
	}
	if callNameIndex([]string{"PING"}) != 0 {
		t.Fatal("a PING call has no qless function name")
	}
}

func TestCallShapes(t *testing.T) {
	script := &way{server: "redis", name: "qless.lua", sha: "abc"}
	got := script.call("pop", "1.5", "q", "w", "10")
	want := []string{"EVALSHA", "abc", "0", "pop", "1.5", "q", "w", "10"}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%q", got)
		}
	}
	native := &way{server: "qlessd", name: "native"}
	if n := native.call("pop", "1.5", "q", "w", "10"); n[0] != "QLESS" || n[1] != "pop" || n[2] != "1.5" || callNameIndex(n) != 1 {
		t.Fatalf("%q", n)
	}
}

func TestRewritingReadsInfoPersistence(t *testing.T) {
	idle := "# Persistence\r\nloading:0\r\naof_enabled:1\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n"
	if rewriting(idle) {
		t.Error("idle server read as rewriting")
	}
	for _, f := range []string{"aof_rewrite_in_progress", "aof_rewrite_scheduled"} {
		if info := strings.Replace(idle, f+":0", f+":1", 1); !rewriting(info) {
			t.Errorf("%s:1 not read as rewriting", f)
		}
	}
}

func TestJidsAreThirtyTwoHexDigitsAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range []string{"00000001", "00000002"} {
		for i := int64(0); i < 3; i++ {
			j := jidOf(p, i)
			if len(j) != 32 || strings.Trim(j, "0123456789abcdef") != "" || seen[j] {
				t.Fatalf("jid %q", j)
			}
			seen[j] = true
		}
	}
}

func TestReadReplies(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	big := strings.Repeat("y", 70000) // past the read buffer
	go func() {
		b.Write([]byte(":9223372036854775807\r\n+OK\r\n:-12\r\n$5\r\nhello\r\n*2\r\n$-1\r\n$3\r\nabc\r\n-ERR x\r\n$70000\r\n" + big + "\r\n"))
		b.Close()
	}()
	c := &conn{nc: a, r: bufio.NewReaderSize(a, 64<<10), w: bufio.NewWriter(a)}
	want := []reply{
		{kind: ':', num: 9223372036854775807},
		{kind: '+', str: "OK"},
		{kind: ':', num: -12},
		{kind: '$', str: "hello"},
		{kind: '*', arr: []reply{{kind: '$', nil: true}, {kind: '$', str: "abc"}}},
	}
	for _, w := range want {
		got, err := c.read()
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Fatalf("got %+v, %v; want %+v", got, err, w)
		}
	}
	if _, err := c.read(); err == nil || err.Error() != "ERR x" {
		t.Fatalf("error reply: %v", err)
	}
	if got, err := c.read(); err != nil || got.str != big {
		t.Fatalf("big bulk: %d bytes, %v", len(got.str), err)
	}
	for _, bad := range []string{"", "-", "1x", "9223372036854775808"} {
		if _, err := length([]byte(bad)); err == nil {
			t.Fatalf("length(%q) took it", bad)
		}
	}
}

func TestMedianRoundsKeepsTheMiddleRoundWhole(t *testing.T) {
	line := func(jobs, p99 float64) *result {
		return &result{Pass: "everysec", Workload: "put", Concurrency: 50, Server: "qlessd", Way: "native", JobsPerSec: jobs, P99Ms: p99}
	}
	mem := func(b float64) *result {
		return &result{Pass: "everysec", Workload: "footprint", Concurrency: 4, Server: "qlessd", Way: "native", JobsPerSec: 9e4, MemBytesPerJob: &b}
	}
	rs := []*result{line(50, 9), mem(1100), line(30, 7), mem(1000), line(40, 8), mem(1200)}
	got := medianRounds(rs, 3)
	if len(got) != 2 {
		t.Fatalf("got %d lines", len(got))
	}
	if got[0].JobsPerSec != 40 || got[0].P99Ms != 8 || got[0].Note != "median of 3 rounds (30-50)" {
		t.Fatalf("put: %+v", got[0])
	}
	if *got[1].MemBytesPerJob != 1100 {
		t.Fatalf("footprint: %v", *got[1].MemBytesPerJob)
	}
	if one := medianRounds(rs[:1], 1); len(one) != 1 || one[0].Note != "" {
		t.Fatalf("one round: %+v", one)
	}
}

func TestClusterLinesPairWithTheSingleNode(t *testing.T) {
	rs := []*result{
		{Pass: "everysec", Workload: "put", Concurrency: 50, Server: "qlessd", Way: "native", JobsPerSec: 200, Calls: 1, P99Ms: 4},
		{Pass: "everysec", Workload: "put", Concurrency: 50, Server: "cluster3", Way: "native", JobsPerSec: 50, Calls: 1, P99Ms: 16},
		{Pass: "always", Workload: "put", Concurrency: 50, Server: "cluster3", Way: "native", JobsPerSec: 10, Calls: 1},
	}
	setClusterRatios(rs)
	if rs[1].OverOneNode == nil || *rs[1].OverOneNode != 0.25 || rs[0].OverOneNode != nil || rs[2].OverOneNode != nil {
		t.Fatalf("ratios %v %v %v", rs[0].OverOneNode, rs[1].OverOneNode, rs[2].OverOneNode)
	}
	var b strings.Builder
	printClusterTable(&b, rs, &config{cluster: 3})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 || !strings.Contains(lines[2], "x3 jobs/s") {
		t.Fatalf("table:\n%s", b.String())
	}
	if f := strings.Fields(lines[3]); len(f) != 10 || f[3] != "200" || f[5] != "4.000" || f[6] != "50" || f[8] != "16.000" || f[9] != "0.25" {
		t.Fatalf("everysec line %q", lines[3])
	}
	if f := strings.Fields(lines[4]); len(f) != 10 || f[3] != "-" || f[6] != "10" || f[9] != "-" {
		t.Fatalf("always line %q", lines[4])
	}
}
