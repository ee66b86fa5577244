package tests

import (
	"regexp"
	"strings"
	"testing"
)

// startDebugPair is StartPair with DEBUG allowed on Redis (DEBUG SLEEP
// makes a slow command).
func startDebugPair(t *testing.T) *Pair {
	qp, rp := StartQlessd(t, ""), StartRedis(t, "--enable-debug-command", "yes")
	return &Pair{Q: DialRaw(t, qp.Addr), R: DialRaw(t, rp.Addr), QP: qp, RP: rp}
}

var (
	slowEntryHead = regexp.MustCompile(`\*6\r\n:(\d+)\r\n:\d+\r\n:\d+\r\n`)
	clientAddr    = regexp.MustCompile(`\$\d+\r\n127\.0\.0\.1:\d+\r\n`)
	latencyTimes  = regexp.MustCompile(`:\d{10}\r\n(:\d+\r\n)+`)
	histogramUsec = regexp.MustCompile(`histogram_usec\r\n\*\d+\r\n(:\d+\r\n)+`)
)

// sameShape sends a command to both servers and compares the replies with
// times, durations and client ports taken out.
func sameShape(t *testing.T, p *Pair, args ...string) string {
	t.Helper()
	norm := func(s string) string {
		s = slowEntryHead.ReplaceAllString(s, "*6\r\n:$1\r\n:T\r\n:D\r\n")
		s = clientAddr.ReplaceAllString(s, "$A\r\n127.0.0.1:P\r\n")
		s = histogramUsec.ReplaceAllString(s, "histogram_usec\r\nH\r\n")
		return latencyTimes.ReplaceAllString(s, ":T\r\n:MS\r\n")
	}
	q, r := norm(p.Q.Do(t, args...)), norm(p.R.Do(t, args...))
	if q != r {
		t.Errorf("%s\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
	}
	return q
}

// TestObserveSlowlogSameAsRedis compares SLOWLOG with redis-server's:
// errors and help, the CONFIG parameters, and entries (a slow DEBUG
// SLEEP, long arguments, many arguments) with times aside.
func TestObserveSlowlogSameAsRedis(t *testing.T) {
	p := startDebugPair(t)
	sameAll(t, p, [][]string{
		{"SLOWLOG", "HELP"}, {"SLOWLOG", "GET", "x"}, {"SLOWLOG", "GET", "-2"}, {"SLOWLOG", "GET", "1", "2"},
		{"SLOWLOG", "LEN", "1"}, {"SLOWLOG", "RESET", "1"}, {"SLOWLOG", "FOO"}, {"SLOWLOG"},
		{"CONFIG", "GET", "slowlog-log-slower-than"}, {"CONFIG", "GET", "slowlog-max-len"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "-2"}, {"CONFIG", "SET", "slowlog-log-slower-than", "x"},
		{"CONFIG", "SET", "slowlog-max-len", "-1"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "100000"},
		{"DEBUG", "SLEEP", "0"}, {"SLOWLOG", "LEN"},
	})
	p.Same(t, "DEBUG", "SLEEP", "0.15")
	sameShape(t, p, "SLOWLOG", "GET")
	long := strings.Repeat("x", 300)
	many := []string{"DEL"}
	for i := range 40 {
		many = append(many, "k"+strings.Repeat("y", i))
	}
	sameAll(t, p, [][]string{
		{"CLIENT", "SETNAME", "slowpoke"}, {"CONFIG", "SET", "slowlog-log-slower-than", "0"},
		{"CONFIG", "SET", "slowlog-max-len", "3"}, {"SET", "k", long}, many, {"GET", "k"},
	})
	got := sameShape(t, p, "SLOWLOG", "GET", "-1")
	if !strings.Contains(got, "... (172 more bytes)") || !strings.Contains(got, "... (10 more arguments)") {
		t.Errorf("SLOWLOG GET lacks the truncated arguments: %q", got)
	}
	sameAll(t, p, [][]string{{"SLOWLOG", "LEN"}, {"SLOWLOG", "RESET"}, {"SLOWLOG", "LEN"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "-1"}, {"GET", "k"}, {"SLOWLOG", "LEN"}})
}

// TestObserveLatencySameAsRedis compares LATENCY with redis-server's: off
// by default, then a slow command past latency-monitor-threshold.
func TestObserveLatencySameAsRedis(t *testing.T) {
	p := startDebugPair(t)
	sameAll(t, p, [][]string{
		{"LATENCY", "HELP"}, {"LATENCY", "FOO"}, {"LATENCY", "HISTORY"}, {"LATENCY", "LATEST", "1"},
		{"LATENCY", "DOCTOR", "x"}, {"LATENCY", "LATEST"}, {"LATENCY", "HISTORY", "command"},
		{"LATENCY", "GRAPH", "command"}, {"LATENCY", "RESET", "command"}, {"LATENCY", "DOCTOR"},
		{"CONFIG", "GET", "latency-monitor-threshold"}, {"CONFIG", "SET", "latency-monitor-threshold", "-1"},
		{"CONFIG", "SET", "latency-monitor-threshold", "100"}, {"DEBUG", "SLEEP", "0.15"},
	})
	sameShape(t, p, "LATENCY", "LATEST")
	sameShape(t, p, "LATENCY", "HISTORY", "command")
	sameAll(t, p, [][]string{{"LATENCY", "RESET", "nope", "command"}, {"LATENCY", "LATEST"},
		{"CONFIG", "RESETSTAT"}, {"SET", "a", "1"}, {"GET", "a"}, {"GET", "a"}, {"LATENCY", "HISTOGRAM", "client|id"}})
	got := sameShape(t, p, "LATENCY", "HISTOGRAM", "set", "GET", "nosuch")
	if !strings.Contains(got, "$3\r\nget\r\n*4\r\n$5\r\ncalls\r\n:2\r\n") {
		t.Errorf("LATENCY HISTOGRAM: %q", got)
	}
	q := p.Q.Do(t, "LATENCY", "HISTOGRAM", "get")
	if !regexp.MustCompile(`histogram_usec\r\n\*(2|4)\r\n(:\d+\r\n)*:2\r\n$`).MatchString(q) {
		t.Errorf("LATENCY HISTOGRAM get: %q, want cumulative counts up to 2", q)
	}
}
