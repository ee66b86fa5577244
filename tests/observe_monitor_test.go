package tests

import (
	"bufio"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// monitorLines reads status lines from a MONITOR connection until one
// matching last arrives.
func monitorLines(t *testing.T, rd *bufio.Reader, c net.Conn, last string) []string {
	t.Helper()
	var lines []string
	c.SetReadDeadline(time.Now().Add(waitTimeout))
	for {
		l, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("monitor: %v after %q", err, lines)
		}
		lines = append(lines, strings.TrimRight(l, "\r\n"))
		if strings.Contains(l, last) {
			return lines
		}
	}
}

// TestObserveMonitor checks MONITOR's lines: Redis's format, arguments
// quoted as Redis quotes them, passwords redacted, admin commands left
// out, a script's commands after the script as "lua", and the monitor's
// own commands refused when they touch keys. A QLESS call served by Go
// shows as itself; one served by qlessd's qless Lua shows its redis.call's
// after it, as a script's.
func TestObserveMonitor(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	mc, err := net.Dial("tcp", q.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	rd := bufio.NewReader(mc)
	mc.Write([]byte("MONITOR\r\n"))
	mc.SetReadDeadline(time.Now().Add(waitTimeout))
	if l, _ := rd.ReadString('\n'); l != "+OK\r\n" {
		t.Fatalf("MONITOR replied %q", l)
	}
	c := DialRaw(t, q.Addr)
	for _, cmd := range [][]string{
		{"SET", "k", "a b\"\n\x01"}, {"CONFIG", "GET", "maxclients"}, {"AUTH", "secret"},
		{"HELLO", "2", "AUTH", "default", "secret"}, {"SELECT", "3"},
		{"EVAL", "redis.call('set', KEYS[1], '1'); return redis.call('get', KEYS[1])", "1", "x"},
		{"CLIENT", "LIST"}, {"ACL", "SETUSER", "bob", "on", ">pw"}, {"ACL", "LIST"}, {"ACL", "WHOAMI"},
		{"QLESS", "put", "now", "w", "q", "jid-1", "K", "{}", "0"},
		{"QLESS", "config.get", "now"}, {"PING", "done"},
	} {
		c.Do(t, cmd...)
	}
	got := monitorLines(t, rd, mc, `"done"`)
	want := []string{
		`[0 127.0.0.1:PORT] "SET" "k" "a b\"\n\x01"`,
		`[0 127.0.0.1:PORT] "AUTH" "(redacted)"`,
		`[0 127.0.0.1:PORT] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"`,
		`[3 127.0.0.1:PORT] "SELECT" "3"`,
		`[3 127.0.0.1:PORT] "EVAL" "redis.call('set', KEYS[1], '1'); return redis.call('get', KEYS[1])" "1" "x"`,
		`[3 lua] "set" "x" "1"`,
		`[3 lua] "get" "x"`,
		`[3 127.0.0.1:PORT] "ACL" "WHOAMI"`,                                   // Redis hides ACL's admin subcommands, SETUSER's password with them
		`[3 127.0.0.1:PORT] "QLESS" "put" "now" "w" "q" "jid-1" "K" "{}" "0"`, // served in Go
		`[3 127.0.0.1:PORT] "QLESS" "config.get" "now"`,                       // served by qlessd's qless Lua
		`[3 lua] "hgetall" "ql:config"`,
		`[3 127.0.0.1:PORT] "PING" "done"`,
	}
	stamp := regexp.MustCompile(`^\+\d{10}\.\d{6} `)
	port := regexp.MustCompile(`127\.0\.0\.1:\d+`)
	var norm []string
	for _, l := range got {
		if !stamp.MatchString(l) {
			t.Errorf("line without Redis's time stamp: %q", l)
		}
		norm = append(norm, port.ReplaceAllString(stamp.ReplaceAllString(l, ""), "127.0.0.1:PORT"))
	}
	if strings.Join(norm, "\n") != strings.Join(want, "\n") {
		t.Errorf("monitor lines:\n%s\nwant:\n%s", strings.Join(norm, "\n"), strings.Join(want, "\n"))
	}
	// The monitor itself: keys are off limits, as for Redis's monitors.
	mc.Write([]byte("GET k\r\n"))
	if l, _ := rd.ReadString('\n'); l != "-ERR Replica can't interact with the keyspace\r\n" {
		t.Errorf("GET from a monitor: %q", l)
	}
	mc.Write([]byte("RESET\r\n"))
	if l, _ := rd.ReadString('\n'); l != "+RESET\r\n" {
		t.Errorf("RESET from a monitor: %q", l)
	}
	c.Do(t, "PING", "unseen")
	mc.Write([]byte("GET k\r\n"))
	if l, _ := rd.ReadString('\n'); !strings.HasPrefix(l, "$") {
		t.Errorf("GET after RESET: %q (the monitor should have stopped)", l)
	}
}

// TestObserveMonitorSameAsRedis compares what Redis answers around
// MONITOR: inside MULTI, and its arity.
func TestObserveMonitorSameAsRedis(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{{"MULTI"}, {"MONITOR"}, {"EXEC"}, {"MONITOR", "x"}})
}

// TestObserveStalledMonitor: a monitor that reads nothing does not hold
// the commands up; once its unsent lines pass the output limit it is
// disconnected, and the server goes on.
func TestObserveStalledMonitor(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	mc, err := net.Dial("tcp", q.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	mc.Write([]byte("MONITOR\r\n"))
	mc.SetReadDeadline(time.Now().Add(waitTimeout))
	if l, _ := bufio.NewReader(mc).ReadString('\n'); l != "+OK\r\n" {
		t.Fatalf("MONITOR replied %q", l)
	}
	// 40000 commands of 1 KB: 40 MB of lines, past the 32 MB hard limit.
	c := DialRaw(t, q.Addr)
	value := strings.Repeat("v", 1000)
	for range 40 {
		for range 1000 {
			c.Send(t, "SET", "k", value)
		}
		for range 1000 {
			if r := c.Read(t); r != "+OK\r\n" {
				t.Fatalf("SET: %q", r)
			}
		}
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		list := c.Do(t, "CLIENT", "LIST")
		if !strings.Contains(list, "flags=O") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled monitor is still connected:\n%s", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := c.Do(t, "GET", "k"); r != "$1000\r\n"+value+"\r\n" {
		t.Errorf("GET after: %.40q", r)
	}
}
