package tests

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/qlessd/qlessd/qless"
)

// A write the data file cannot take is refused and not applied: Redis's
// MISCONF contract, checked on a real full filesystem (a small tmpfs, where
// this test may mount one) and with a real file size limit (RLIMIT_FSIZE
// on the qlessd process, which anyone may lower; the write then fails with
// EFBIG). Reads, qless reads and read-only scripts go on; once there is
// room again writes resume, and a restart finds exactly what was
// acknowledged.
func TestWriteErrorsRefuseAndApplyNothing(t *testing.T) {
	t.Parallel()
	t.Run("full tmpfs", func(t *testing.T) {
		mnt := mountTmpfs(t, "4m")
		filler := filepath.Join(mnt, "filler")
		if err := os.WriteFile(filler, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		q := StartQlessd(t, filepath.Join(mnt, "data"))
		misconfScenario(t, q, "No space left on device", func() {
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("file size limit", func(t *testing.T) {
		dir := t.TempDir()
		q := StartQlessd(t, dir)
		pid := q.cmd.Process.Pid
		// Room for the set-up writes and a few hundred kilobytes more.
		setFileSizeLimit(t, pid, 1<<20)
		misconfScenario(t, q, "File too large", func() {
			setFileSizeLimit(t, pid, noLimit)
		})
	})
}

// While writes to a full disk fail, qlessd refuses and serves what Redis
// with appendonly refuses and serves, with the same bytes.
func TestMisconfRepliesMatchRedis(t *testing.T) {
	t.Parallel()
	qmnt, rmnt := mountTmpfs(t, "4m"), mountTmpfs(t, "4m")
	p := &Pair{QP: StartQlessd(t, qmnt), RP: StartRedis(t, "--dir", rmnt, "--appendonly", "yes")}
	p.Q, p.R = DialRaw(t, p.QP.Addr), DialRaw(t, p.RP.Addr)
	queued := &Pair{Q: DialRaw(t, p.QP.Addr), R: DialRaw(t, p.RP.Addr)}
	p.Same(t, "SET", "counter", "10")
	queued.Same(t, "MULTI")
	queued.Same(t, "SET", "x", "1")
	big := strings.Repeat("v", 200<<10)
	for _, c := range []*Raw{p.Q, p.R} {
		for i := 0; ; i++ {
			got := c.Do(t, "SET", "big:"+strconv.Itoa(i), big)
			if strings.HasPrefix(got, "-MISCONF") {
				break
			}
			if got != "+OK\r\n" || i > 100 {
				t.Fatalf("SET big:%d = %q", i, got)
			}
		}
	}
	queued.Same(t, "EXEC")
	for _, cmd := range [][]string{
		{"INCR", "counter"}, {"SET", "k", "v"}, {"DEL", "counter"}, {"EXPIRE", "counter", "100"},
		{"FLUSHALL"}, {"PING"}, {"GET", "counter"}, {"EXISTS", "counter"}, {"PUBLISH", "ch", "m"},
		{"EVAL", "return redis.call('get','counter')", "0"},
		{"EVAL", "return redis.call('set','x','1')", "0"},
		{"EVAL", "redis.call('get','counter') return redis.call('incr','counter')", "0"},
		{"EVAL", "#!lua\nreturn 1", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','counter')", "0"},
		{"EVAL_RO", "return redis.call('set','x','1')", "0"},
		{"EVAL_RO", "return redis.call('get','counter')", "0"},
		{"EVAL_RO", "#!lua\nreturn 1", "0"},
		{"MULTI"}, {"GET", "counter"}, {"EXEC"},
		{"MULTI"}, {"SET", "x", "1"}, {"GET", "counter"}, {"EXEC"},
		{"MULTI"}, {"EVAL", "return redis.call('get','counter')", "0"}, {"EXEC"},
		{"GET", "counter"},
	} {
		p.Same(t, cmd...)
	}
}

// misconfScenario fills q's data file until a write fails with errText,
// checks what is refused and what is served, calls free, and checks that
// writes resume and that a restart keeps exactly what was acknowledged.
func misconfScenario(t *testing.T, q *Proc, errText string, free func()) {
	misconf := "-MISCONF Errors writing to the AOF file: " + errText + "\r\n"
	c := DialRaw(t, q.Addr)
	if got := c.Do(t, "SCRIPT", "LOAD", qless.Script()); !strings.Contains(got, qless.SHA()) {
		t.Fatalf("SCRIPT LOAD = %q", got)
	}
	expect(t, c, "$1\r\na\r\n", "QLESS", "put", "1700000000", "w", "q", "a", "K", "{}", "0")
	expect(t, c, "+OK\r\n", "SET", "counter", "10")
	failed := fillUntil(t, c, misconf)
	duringMisconf(t, c, misconf, failed)

	free()
	deadline := time.Now().Add(waitTimeout)
	for {
		got := c.Do(t, "INCR", "counter")
		if got == ":11\r\n" {
			break
		}
		if got != misconf || time.Now().After(deadline) {
			t.Fatalf("INCR once there is room = %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	expect(t, c, "+PONG\r\n", "PING")
	expect(t, c, "$1\r\nb\r\n", "QLESS", "put", "1700000003", "w", "q", "b", "K", "{}", "0")

	q.Stop()
	q2 := StartQlessd(t, q.Dir)
	c = DialRaw(t, q2.Addr)
	expect(t, c, "$2\r\n11\r\n", "GET", "counter")
	expect(t, c, ":0\r\n", "EXISTS", "big:"+strconv.Itoa(failed))
	for i := range failed {
		expect(t, c, ":1\r\n", "EXISTS", "big:"+strconv.Itoa(i))
	}
	for _, jid := range []string{"a", "b"} {
		if got := c.Do(t, "QLESS", "get", "1700000004", jid); !strings.Contains(got, `"jid":"`+jid+`"`) {
			t.Errorf("job %s after restart: %q", jid, got)
		}
	}
}

// expect fails the test unless c answers args with want.
func expect(t *testing.T, c *Raw, want string, args ...string) {
	t.Helper()
	if got := c.Do(t, args...); got != want {
		t.Fatalf("%q = %q, want %q", args, got, want)
	}
}

// fillUntil sets keys big:0, big:1... to 200 KB values until one gets
// the reply misconf, and returns its number.
func fillUntil(t *testing.T, c *Raw, misconf string) int {
	t.Helper()
	big := strings.Repeat("v", 200<<10)
	for i := 0; i < 100; i++ {
		switch got := c.Do(t, "SET", "big:"+strconv.Itoa(i), big); got {
		case "+OK\r\n":
		case misconf:
			if i == 0 {
				t.Fatal("the first SET failed")
			}
			return i
		default:
			t.Fatalf("SET big:%d = %q, want +OK or %q", i, got, misconf)
		}
	}
	t.Fatal("no SET failed")
	return 0
}

// duringMisconf checks, while writes fail, that the failed SET big:<failed>
// was not applied, that writes are refused, and that reads, qless reads
// and a read-only script are served.
func duringMisconf(t *testing.T, c *Raw, misconf string, failed int) {
	t.Helper()
	expect(t, c, ":0\r\n", "EXISTS", "big:"+strconv.Itoa(failed))
	expect(t, c, misconf, "INCR", "counter")
	expect(t, c, misconf, "DEL", "big:0")
	expect(t, c, misconf, "PING")
	expect(t, c, misconf, "QLESS", "put", "1700000001", "w", "q", "b", "K", "{}", "0")
	if got := c.Do(t, "EVALSHA", qless.SHA(), "0", "put", "1700000001", "w", "q", "b", "K", "{}", "0"); !strings.HasPrefix(got, strings.TrimSuffix(misconf, "\r\n")+" script: "+qless.SHA()) {
		t.Errorf("EVALSHA of a qless put = %q, want %q and the script's place", got, misconf)
	}
	expect(t, c, "$2\r\n10\r\n", "GET", "counter")
	expect(t, c, ":1\r\n", "EXISTS", "big:0")
	for _, get := range [][]string{
		{"QLESS", "get", "1700000002", "a"},
		{"EVALSHA", qless.SHA(), "0", "get", "1700000002", "a"},
	} {
		if got := c.Do(t, get...); !strings.Contains(got, `"jid":"a"`) {
			t.Errorf("%s during MISCONF = %q", get[0], got)
		}
	}
	expect(t, c, ":0\r\n", "QLESS", "length", "1700000002", "nosuchqueue")
	if got := c.Do(t, "INFO", "persistence"); !strings.Contains(got, "aof_last_write_status:err") {
		t.Errorf("INFO persistence does not report the failed write:\n%s", got)
	}
}

// mountTmpfs mounts a tmpfs of the given size for the test, skipping the
// test where this process may not mount one (the file size limit case
// covers the contract there).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			t.Skipf("cannot mount a tmpfs here (%v); the file size limit case covers MISCONF", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// noLimit is RLIM_INFINITY.
const noLimit = ^uint64(0)

// setFileSizeLimit sets RLIMIT_FSIZE of process pid: a write past it fails
// with EFBIG (Go programs ignore the SIGXFSZ that comes with it).
func setFileSizeLimit(t *testing.T, pid int, limit uint64) {
	t.Helper()
	lim := syscall.Rlimit{Cur: limit, Max: noLimit}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE,
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		t.Fatalf("prlimit RLIMIT_FSIZE of %d: %v", pid, errno)
	}
}

// Clients count up their own counters while the data file's size limit
// comes and goes: each INCR reply that is a number must be one more than
// the last, a GET must show the last acknowledged count (or MISCONF, when
// it shared a batch with a failed write), and after a restart every
// counter must equal the INCRs acknowledged. A failed INCR applied anyway,
// or an acknowledged one lost, breaks the count.
func TestCountersSurviveWriteErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	const clients = 20
	acked := make([]int, clients)
	stop := make(chan struct{})
	done := make(chan struct{}, clients)
	var failures, acks atomic.Int64
	for i := range clients {
		c := DialRaw(t, q.Addr)
		go func() {
			defer func() { done <- struct{}{} }()
			key := "c" + strconv.Itoa(i)
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := c.Do(t, "INCR", key)
				switch {
				case strings.HasPrefix(got, "-MISCONF"):
					failures.Add(1)
					continue
				case got != ":"+strconv.Itoa(acked[i]+1)+"\r\n":
					t.Errorf("INCR %s = %q after %d acknowledged", key, got, acked[i])
					return
				}
				acked[i]++
				acks.Add(1)
				got = c.Do(t, "GET", key)
				if !strings.HasPrefix(got, "-MISCONF") && got != "$"+strconv.Itoa(len(strconv.Itoa(acked[i])))+"\r\n"+strconv.Itoa(acked[i])+"\r\n" {
					t.Errorf("GET %s = %q after %d acknowledged", key, got, acked[i])
					return
				}
			}
		}()
	}
	path := filepath.Join(dir, "qlessd.db")
	// Each round waits for what it means rather than for a time: INCRs
	// acknowledged, then INCRs failing under the limit, then acknowledged
	// again once it is lifted.
	grows := func(n *atomic.Int64, what string) {
		t.Helper()
		from := n.Load()
		for deadline := time.Now().Add(waitTimeout); n.Load() < from+20; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s stayed at %d", what, n.Load())
			}
		}
	}
	for range 4 {
		grows(&acks, "acknowledged INCRs")
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		setFileSizeLimit(t, q.cmd.Process.Pid, uint64(st.Size())+8<<10)
		grows(&failures, "failed INCRs under the size limit")
		setFileSizeLimit(t, q.cmd.Process.Pid, noLimit)
	}
	grows(&acks, "acknowledged INCRs after the limit went")
	close(stop)
	for range clients {
		<-done
	}
	if failures.Load() == 0 {
		t.Fatal("no write failed")
	}
	q.Stop()
	q2 := StartQlessd(t, dir)
	c := DialRaw(t, q2.Addr)
	for i := range clients {
		want := ":0\r\n"
		if acked[i] > 0 {
			want = "$" + strconv.Itoa(len(strconv.Itoa(acked[i]))) + "\r\n" + strconv.Itoa(acked[i]) + "\r\n"
		} else if got := c.Do(t, "EXISTS", "c"+strconv.Itoa(i)); got != want {
			t.Errorf("c%d exists after restart with no INCR acknowledged", i)
		}
		if acked[i] > 0 {
			if got := c.Do(t, "GET", "c"+strconv.Itoa(i)); got != want {
				t.Errorf("c%d = %q after restart, %d INCRs acknowledged", i, got, acked[i])
			}
		}
	}
	t.Logf("%d INCRs acknowledged, %d refused", sum(acked), failures.Load())
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
