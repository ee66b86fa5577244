package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// While a script runs past lua-time-limit (set by CONFIG SET), a client
// that connects meanwhile is answered at once: BUSY for most commands, OK
// for the few Redis allows (MULTI, DISCARD). The script's own client gets
// its pipelined commands answered in order, after the script. The script
// never ends by itself and SCRIPT KILL ends it, so that however slowly a
// loaded machine runs the test, the other client's commands all come
// while it runs.
func TestScriptingPastLimitServesOthers(t *testing.T) {
	run := func(addr string) []string {
		DialRaw(t, addr).Do(t, "CONFIG", "SET", "lua-time-limit", "50")
		runner := DialRaw(t, addr)
		runner.Send(t, "SET", "k", "v")
		runner.Send(t, "EVAL", "local i = 0 while true do i = i + 1 end", "0")
		runner.Send(t, "GET", "k")
		untilBusy(t, DialRaw(t, addr), "PING") // the script is past its limit
		other := DialRaw(t, addr)
		var out []string
		for _, cmd := range [][]string{{"PING"}, {"MULTI"}, {"GET", "k"}, {"DISCARD"}, {"SET", "k", "w"}, {"SCRIPT", "KILL"}} {
			out = append(out, strings.Join(cmd, " ")+" -> "+other.Do(t, cmd...))
		}
		for range 3 {
			out = append(out, "runner -> "+runner.Read(t))
		}
		out = append(out, "after -> "+other.Do(t, "GET", "k"))
		return out
	}
	q, r := StartQlessd(t, ""), StartRedis(t) // the limit comes from CONFIG SET
	got, want := run(q.Addr), run(r.Addr)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("qlessd:\n  %s\nredis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// SHUTDOWN NOSAVE is the way out of a script that has written and does not
// end: the server exits at once, keeping what was committed before the
// script and nothing the script wrote, as Redis does.
func TestScriptingShutdownNosaveEndsAStuckScript(t *testing.T) {
	dir := t.TempDir()
	q := StartQlessd(t, dir, "--lua-time-limit", "50")
	DialRaw(t, q.Addr).Do(t, "SET", "before", "1")
	runner := DialRaw(t, q.Addr)
	runner.Send(t, "EVAL", "redis.call('set', 'during', 1) while true do end", "0")
	other := DialRaw(t, q.Addr)
	if got := untilBusy(t, other, "PING"); !strings.HasPrefix(got, "-BUSY") {
		t.Fatalf("PING during the script: %q", got)
	}
	if got := other.Do(t, "SCRIPT", "KILL"); !strings.HasPrefix(got, "-UNKILLABLE") {
		t.Fatalf("SCRIPT KILL: %q", got)
	}
	other.Send(t, "SHUTDOWN", "NOSAVE")
	for deadline := time.Now().Add(waitTimeout); !q.Exited(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SHUTDOWN NOSAVE did not stop the server")
		}
	}
	q2 := StartQlessd(t, dir)
	if got := DialRaw(t, q2.Addr).Do(t, "MGET", "before", "during"); got != "*2\r\n$1\r\n1\r\n$-1\r\n" {
		t.Errorf("after restart: %q", got)
	}
}

// A script that never ends inside MULTI/EXEC runs outside the event loop
// and holds the store there; the loop's clients still get BUSY past the
// limit, and SCRIPT KILL ends it, as on Redis.
func TestScriptingBusyInsideExec(t *testing.T) {
	run := func(addr string) []string {
		DialRaw(t, addr).Do(t, "CONFIG", "SET", "lua-time-limit", "50")
		g, other := DialRaw(t, addr), DialRaw(t, addr)
		out := []string{g.Do(t, "MULTI"), g.Do(t, "EVAL", "while true do end", "0")}
		g.Send(t, "EXEC")
		out = append(out, untilBusy(t, other, "GET", "x"), other.Do(t, "SCRIPT", "KILL"))
		return append(out, g.Read(t), other.Do(t, "GET", "x"))
	}
	q, r := StartQlessd(t, ""), StartRedis(t)
	got, want := run(q.Addr), run(r.Addr)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("qlessd:\n  %q\nredis:\n  %q", got, want)
	}
}

// spinScript is a script that keeps the server busy (polling TIME) for
// micros microseconds, then returns ret, a Lua expression.
func spinScript(micros int, ret string) string {
	return "local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end " +
		"local s = now() while now() - s < " + strconv.Itoa(micros) + " do end return " + ret
}

// untilBusy sends cmd on c every 20 ms until it is answered BUSY, for up
// to waitTimeout, and returns the last reply.
func untilBusy(t testing.TB, c *Raw, cmd ...string) string {
	t.Helper()
	var got string
	for deadline := time.Now().Add(waitTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = c.Do(t, cmd...); strings.HasPrefix(got, "-BUSY") {
			break
		}
	}
	return got
}

// Scripts pipelined by one client, or queued in one MULTI, each well under
// lua-time-limit but together past it: Redis runs them one after another
// and nobody gets BUSY, as no one script is past the limit; the others
// wait. Here the pipeline runs in one event-loop batch and EXEC in one
// transaction, announced once: each script must restart the busy clock.
func TestScriptingShortScriptsInARowAreNotBusy(t *testing.T) {
	// Together the scripts pass the limit (2.4 s against 2), and each one
	// stays far under it: 1.8 s of margin, as a loaded machine can hold a
	// server back mid-script (with 30 ms scripts against 400 ms, one was
	// held past the limit and got BUSY, on a machine at load 24).
	const scripts = 12
	body := spinScript(200000, "'done'")
	run := func(t *testing.T, addr string, exec bool) []string {
		DialRaw(t, addr).Do(t, "CONFIG", "SET", "lua-time-limit", "2000")
		runner := DialRaw(t, addr)
		replies := scripts
		if exec {
			runner.Send(t, "MULTI")
			replies += 2 // OK, and EXEC's array after the QUEUED
		}
		for range scripts {
			runner.Send(t, "EVAL", body, "0")
		}
		if exec {
			runner.Send(t, "EXEC")
		}
		time.Sleep(30 * time.Millisecond)
		other := DialRaw(t, addr)
		out := []string{"PING -> " + other.Do(t, "PING")}
		for range replies {
			out = append(out, "runner -> "+runner.Read(t))
		}
		return append(out, "after -> "+other.Do(t, "PING"))
	}
	for _, exec := range []bool{false, true} {
		q, r := StartQlessd(t, ""), StartRedis(t)
		var got, want []string
		// The two servers at once: each spins one core.
		t.Run(map[bool]string{false: "pipelined", true: "exec"}[exec], func(t *testing.T) {
			t.Run("qlessd", func(t *testing.T) { t.Parallel(); got = run(t, q.Addr, exec) })
			t.Run("redis", func(t *testing.T) { t.Parallel(); want = run(t, r.Addr, exec) })
		})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("exec %v: qlessd:\n  %s\nredis:\n  %s", exec, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// lua-time-limit 0 is no limit on Redis: a long script makes the others
// wait, never BUSY.
func TestScriptingNoTimeLimit(t *testing.T) {
	body := spinScript(300000, "'done'")
	run := func(addr string) []string {
		DialRaw(t, addr).Do(t, "CONFIG", "SET", "lua-time-limit", "0")
		runner := DialRaw(t, addr)
		runner.Send(t, "EVAL", body, "0")
		time.Sleep(50 * time.Millisecond)
		other := DialRaw(t, addr)
		out := []string{"PING -> " + other.Do(t, "PING")}
		return append(out, "runner -> "+runner.Read(t), "CONFIG -> "+other.Do(t, "CONFIG", "GET", "lua-time-limit"))
	}
	q, r := StartQlessd(t, ""), StartRedis(t)
	got, want := run(q.Addr), run(r.Addr)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("qlessd:\n  %s\nredis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
