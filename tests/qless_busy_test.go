package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/qless"
)

// A long qless call (QLESS queues over many queues, or EVALSHA of the
// printed script doing it) past lua-time-limit makes the other clients get
// BUSY, as a script does on Redis; SCRIPT KILL stops it while it has written
// nothing, and answers UNKILLABLE once it has. Redis 7.0 running the printed
// script gives the replies compared with.
func TestQlessLongCallBusy(t *testing.T) {
	t.Parallel()
	for _, early := range []bool{false, true} {
		name := "killed"
		if early {
			name = "unkillable"
		}
		// Each server calibrates its own call, so the cases and the ways
		// of calling run side by side.
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := StartRedis(t)
			want := longQueuesCall(t, r.Addr, true, early)
			t.Logf("redis:\n  %s", strings.Join(want, "\n  "))
			for _, viaScript := range []bool{true, false} {
				t.Run(map[bool]string{true: "evalsha", false: "qless"}[viaScript], func(t *testing.T) {
					t.Parallel()
					q := StartQlessd(t, "")
					got := longQueuesCall(t, q.Addr, viaScript, early)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("qlessd:\n  %s\nredis:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
					}
				})
			}
		})
	}
}

// longQueuesCall makes `queues` take a second or more on addr (many
// queues), with one due scheduled job, which the call moves to its work: in
// the first queue it reads (early: the call writes at once) or in the last
// (it writes at its very end). It then runs the call with lua-time-limit
// 10 ms and returns what another client sees meanwhile and after, and what
// becomes of the job. viaScript calls through EVALSHA of the printed
// script, else QLESS.
func longQueuesCall(t *testing.T, addr string, viaScript, early bool) []string {
	c := DialRaw(t, addr)
	call := func(args ...string) []string { return append([]string{"QLESS"}, args...) }
	if viaScript {
		if got := c.Do(t, "SCRIPT", "LOAD", qless.Script()); !strings.Contains(got, qless.SHA()) {
			t.Fatalf("SCRIPT LOAD: %q", got)
		}
		call = func(args ...string) []string { return append([]string{"EVALSHA", qless.SHA(), "0"}, args...) }
	}
	// Four times as many queues as take a second: the call must not end
	// before the others have been answered (all of them, or SCRIPT KILL).
	// A machine that got faster since (its load went) can still end it
	// first: then again, from scratch, with twice as many.
	n, took := growUntilLong(t, c, call("queues", "5000"))
	have := n
	for scale := 4; ; scale *= 2 {
		out, ended := longQueuesCallOnce(t, c, addr, call, have, scale*n, early, took)
		if !ended {
			return out
		}
		if scale >= 64 {
			t.Fatalf("the call over %d queues still ended before the others saw it busy: %q", scale*n, out)
		}
		t.Logf("the call over %d queues ended before the others saw it busy (%q): again with twice as many", scale*n, out)
		c.Do(t, "FLUSHALL")
		have = 0
	}
}

// longQueuesCallOnce runs the call of longQueuesCall over queues queues
// (have of them there already), and says whether it ended before the
// others saw it busy: no comparison then, only a longer call.
func longQueuesCallOnce(t *testing.T, c *Raw, addr string, call func(...string) []string, have, queues int, early bool, took time.Duration) ([]string, bool) {
	addQueues(t, c, have, queues-have)
	// The job's queue comes first (score 1000) or last (3000) in
	// ql:queues, whose other queues have 2000.
	at, queue := "3000", "z-last"
	if early {
		at, queue = "1000", "a-first"
	}
	if got := c.Do(t, call("put", at, "w", queue, "the-job", "K", "{}", "10")...); got != "$7\r\nthe-job\r\n" {
		t.Fatalf("put: %q", got)
	}
	size := c.Do(t, "DBSIZE")
	c.Do(t, "CONFIG", "SET", "lua-time-limit", limitAfterFirstWrite(early, took))
	runner := DialRaw(t, addr)
	runner.Send(t, call("queues", "5000")...)
	// Connections go to the event loops in turn: some share the caller's.
	others := make([]*Raw, 8)
	for i := range others {
		others[i] = DialRaw(t, addr)
	}
	other := others[0]
	busy, running := busyWhileRunning(t, other, runner, "PING")
	if !running {
		return []string{"PING -> " + busy, "caller -> " + replyGist(runner.Read(t))}, true
	}
	out := []string{"PING -> " + busy}
	if !early {
		for i, o := range others[1:] {
			if got := o.Do(t, "GET", "x"); !strings.HasPrefix(got, "-BUSY") {
				out = append(out, "GET on connection "+strconv.Itoa(i+1)+" -> "+got)
			}
		}
	}
	kill := other.Do(t, "SCRIPT", "KILL")
	if strings.HasPrefix(kill, "-NOTBUSY") {
		return append(out, "SCRIPT KILL -> "+kill, "caller -> "+replyGist(runner.Read(t))), true
	}
	out = append(out, "SCRIPT KILL -> "+kill)
	out = append(out, "caller -> "+replyGist(runner.Read(t)))
	out = append(out, "PING -> "+other.Do(t, "PING"))
	out = append(out, "job -> "+other.Do(t, "HGET", "ql:j:the-job", "state"))
	if got := other.Do(t, "DBSIZE"); got != size {
		out = append(out, "DBSIZE "+size+" before, "+got+" after")
	}
	return out, false
}

// busyWhileRunning sends cmd on c every 20 ms until it is answered BUSY
// (it returns that reply and true) or until runner has its reply, the
// long call having ended first (the last reply and false), for up to
// waitTimeout.
func busyWhileRunning(t testing.TB, c, runner *Raw, cmd ...string) (string, bool) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(waitTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = c.Do(t, cmd...); strings.HasPrefix(got, "-BUSY") {
			return got, true
		}
		if runner.replied() {
			return got, false
		}
	}
	return got, true
}

// growUntilLong adds queues to ql:queues (score 2000) until call takes a
// second or more, and returns how many there are and how long it took.
func growUntilLong(t *testing.T, c *Raw, call []string) (int, time.Duration) {
	t.Helper()
	for n := 0; ; {
		add := max(n, 2000)
		addQueues(t, c, n, add)
		n += add
		start := time.Now()
		if got := c.Do(t, call...); got[0] != '$' {
			t.Fatalf("%v: %.100q", call, got)
		}
		if took := time.Since(start); took >= time.Second {
			return n, took
		}
		if n >= 4000000 {
			t.Fatalf("%v still takes less than a second with %d queues", call, n)
		}
	}
}

// addQueues adds n queues to ql:queues, numbered from the from'th on.
func addQueues(t *testing.T, c *Raw, from, n int) {
	t.Helper()
	for i := from; i < from+n; i += 10000 {
		args := []string{"ZADD", "ql:queues"}
		for j := i; j < min(from+n, i+10000); j++ {
			args = append(args, "2000", "q"+strconv.Itoa(10000000+j))
		}
		if got := c.Do(t, args...); got[0] != ':' {
			t.Fatalf("ZADD: %q", got)
		}
	}
}

// limitAfterFirstWrite is the lua-time-limit (ms) for a long queues call:
// 10 ms, or, when the test needs the call to have written before it is
// past the limit (early), the time a quarter of the call took (took): the
// call first reads every queue's name (ZRANGE ql:queues, a few percent of
// it) and writes in the first queue, and a limit that short of that read
// would let SCRIPT KILL in before the write, in whatever mode the
// connection is served (a goroutine's clients see BUSY from the limit on).
func limitAfterFirstWrite(early bool, took time.Duration) string {
	if !early {
		return "10"
	}
	return strconv.FormatInt(took.Milliseconds(), 10)
}

// replyGist is a reply's first line, an error's up to Redis's "..." (after
// which a script's error names its position, where it was stopped), or
// "$..." for a bulk string.
func replyGist(reply string) string {
	switch reply[0] {
	case '$':
		return "$..."
	case '-':
		if i := strings.Index(reply, "..."); i > 0 {
			return reply[:i+3]
		}
	}
	line, _, _ := strings.Cut(reply, "\r\n")
	return line
}

// The same for a call served in Go (a fast path): QLESS complete of a job
// with many dependents reads them all before its first write, so SCRIPT
// KILL stops it then, and nothing of it is kept. (Redis running the
// printed script writes the completion before it goes through the
// dependents, so there the same call is UNKILLABLE at that point.)
func TestQlessLongCallBusyFastPath(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	n := 20000
	for ; ; n *= 2 {
		jid := "calibrate-" + strconv.Itoa(n)
		running(t, c, jid, n)
		start := time.Now()
		if got := c.Do(t, "QLESS", "complete", "1000", jid, "w", "q", "{}"); got != "$8\r\ncomplete\r\n" {
			t.Fatalf("complete: %q", got)
		}
		if time.Since(start) >= time.Second {
			break
		}
		if n >= 8000000 {
			t.Fatalf("complete still takes less than a second with %d dependents", n)
		}
	}
	running(t, c, "the-job", n)
	size := c.Do(t, "DBSIZE")
	c.Do(t, "CONFIG", "SET", "lua-time-limit", "10")
	runner, other := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	runner.Send(t, "QLESS", "complete", "1000", "the-job", "w", "q", "{}")
	got := []string{untilBusy(t, other, "PING"), other.Do(t, "SCRIPT", "KILL"), replyGist(runner.Read(t)),
		other.Do(t, "PING"), other.Do(t, "HGET", "ql:j:the-job", "state"), other.Do(t, "SCARD", "ql:j:the-job-dependents"), other.Do(t, "DBSIZE")}
	want := []string{"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n", "+OK\r\n",
		"-ERR Script killed by user with SCRIPT KILL...", "+PONG\r\n", "$7\r\nrunning\r\n", ":" + strconv.Itoa(n) + "\r\n", size}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("with %d dependents:\n got %q\nwant %q", n, got, want)
	}
}

// running puts jid in queue q and pops it for worker w, and gives it n
// dependents (bare jids: release_dependents skips those with no job).
func running(t *testing.T, c *Raw, jid string, n int) {
	t.Helper()
	if got := c.Do(t, "QLESS", "put", "1000", "w", "q", jid, "K", "{}", "0"); !strings.Contains(got, jid) {
		t.Fatalf("put: %q", got)
	}
	if got := c.Do(t, "QLESS", "pop", "1000", "q", "w", "1"); !strings.Contains(got, jid) {
		t.Fatalf("pop: %.200q", got)
	}
	for i := 0; i < n; i += 10000 {
		args := []string{"SADD", "ql:j:" + jid + "-dependents"}
		for j := i; j < min(n, i+10000); j++ {
			args = append(args, "d"+strconv.Itoa(j))
		}
		c.Do(t, args...)
	}
}

// SHUTDOWN NOSAVE ends the server during a long qless call that has
// written, as during a script: what was committed before is kept, what the
// call wrote is not.
func TestQlessLongCallShutdownNosave(t *testing.T) {
	t.Parallel()
	// The call must outlast the shutdown, which gives running commands a
	// second to end: four times as many queues as take a second, and twice
	// as many again each time a machine that got faster since ended the
	// call first.
	for scale := 4; !longCallShutdown(t, scale); scale *= 2 {
		if scale >= 64 {
			t.Fatalf("a call over %d times the queues that took a second still ended before the shutdown", scale)
		}
		t.Logf("the call over %d times the queues that took a second ended before the shutdown: again with twice as many", scale)
	}
}

// longCallShutdown runs TestQlessLongCallShutdownNosave with a call over
// scale times the queues that take a second; false when the call ended
// before the shutdown stopped it (nothing to check then).
func longCallShutdown(t *testing.T, scale int) bool {
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	c := DialRaw(t, q.Addr)
	n, took := growUntilLong(t, c, []string{"QLESS", "queues", "5000"})
	addQueues(t, c, n, (scale-1)*n)
	if got := c.Do(t, "QLESS", "put", "1000", "w", "a-first", "the-job", "K", "{}", "10"); got != "$7\r\nthe-job\r\n" {
		t.Fatalf("put: %q", got)
	}
	c.Do(t, "CONFIG", "SET", "lua-time-limit", limitAfterFirstWrite(true, took))
	runner, other := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	runner.Send(t, "QLESS", "queues", "5000") // moves the job to its queue's work first
	got, running := busyWhileRunning(t, other, runner, "PING")
	if !running {
		q.Stop()
		return false
	}
	if !strings.HasPrefix(got, "-BUSY") {
		t.Fatalf("PING during the call: %q", got)
	}
	got = other.Do(t, "SCRIPT", "KILL")
	if strings.HasPrefix(got, "-NOTBUSY") {
		q.Stop()
		return false
	}
	if !strings.HasPrefix(got, "-UNKILLABLE") {
		t.Fatalf("SCRIPT KILL: %q", got)
	}
	other.Send(t, "SHUTDOWN", "NOSAVE")
	for deadline := time.Now().Add(waitTimeout); !q.Exited(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SHUTDOWN NOSAVE did not stop the server")
		}
	}
	if runner.replied() {
		return false // the call ended, and was committed, before the server did
	}
	q2 := StartQlessd(t, dir)
	if got := DialRaw(t, q2.Addr).Do(t, "HGET", "ql:j:the-job", "state"); got != "$9\r\nscheduled\r\n" {
		t.Errorf("the job after restart: %q", got)
	}
	q2.Stop()
	return true
}
