// Package tests holds end-to-end tests against a started qlessd, and
// differential tests that send the same commands to qlessd and to a real
// redis-server and compare the replies byte for byte.
package tests

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	qlessdBin string // built by the run, removed at its end
	prebuilt  string // QLESSD_BIN, kept
	buildErr  error
	buildOnce sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if qlessdBin != "" {
		os.RemoveAll(filepath.Dir(qlessdBin))
	}
	os.Exit(code)
}

// soakOr is short under go test -short (make test) and long otherwise
// (make soak): how many rounds a randomized or load test runs.
func soakOr(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}

// modeArgs are the flags every started qlessd gets from QLESSD_ARGS: the
// suite runs once as built by default and once with --event-loop no.
func modeArgs() []string { return strings.Fields(os.Getenv("QLESSD_ARGS")) }

// binary builds cmd/qlessd once per test run, or takes QLESSD_BIN, one
// built already: make test builds it once for its three end-to-end steps.
func binary(t testing.TB) string {
	buildOnce.Do(func() {
		if bin := os.Getenv("QLESSD_BIN"); bin != "" {
			if _, err := os.Stat(bin); err != nil {
				buildErr = fmt.Errorf("QLESSD_BIN: %v", err)
			}
			prebuilt = bin
			return
		}
		dir, err := os.MkdirTemp("", "qlessd-bin")
		if err != nil {
			buildErr = err
			return
		}
		bin := filepath.Join(dir, "qlessd")
		// QLESSD_BUILD_FLAGS (say -race) go to go build.
		build := append([]string{"build"}, strings.Fields(os.Getenv("QLESSD_BUILD_FLAGS"))...)
		out, err := exec.Command("go", append(build, "-o", bin, "../cmd/qlessd")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build qlessd: %v\n%s", err, out)
			return
		}
		qlessdBin = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	if prebuilt != "" {
		return prebuilt
	}
	return qlessdBin
}

// handedPorts are the ports freePort has given out in this run.
var handedPorts struct {
	sync.Mutex
	m map[int]bool
}

// freePort is a port nothing listened on a moment ago, and one it has not
// given out before in this run: the kernel can hand a just-closed port out
// again, and a cluster whose two nodes got one raft port does not start
// (seen with cluster tests side by side).
func freePort(t testing.TB) int {
	handedPorts.Lock()
	defer handedPorts.Unlock()
	if handedPorts.m == nil {
		handedPorts.m = map[int]bool{}
	}
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// One given out before stays bound until a new one is found.
		defer l.Close()
		if port := l.Addr().(*net.TCPAddr).Port; !handedPorts.m[port] {
			handedPorts.m[port] = true
			return port
		}
	}
}

// Proc is a started server process.
type Proc struct {
	Addr string
	Dir  string
	cmd  *exec.Cmd
	out  *bytes.Buffer
	mu   sync.Mutex
	done chan struct{}
}

// Output returns what the process logged so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

type lockedWriter struct {
	p *Proc
}

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// waitTimeout is how long a test waits for a condition it polls (a count
// of blocked clients, a log line, a job's state): long enough for a busy
// 2-core machine, as reaching it late is no failure, only never reaching it.
const waitTimeout = 60 * time.Second

// startTimeout is how long a started server may take to listen: generous,
// as the suite runs servers side by side on a machine that may be busy.
const startTimeout = 60 * time.Second

func startProc(t testing.TB, dir string, name string, args ...string) *Proc {
	t.Helper()
	return startProcEnv(t, dir, nil, name, args...)
}

// startProcEnv is startProc with env (KEY=value, test hooks) added to the
// process's environment: t.Setenv would do it too, but would keep the
// test from running beside others.
func startProcEnv(t testing.TB, dir string, env []string, name string, args ...string) *Proc {
	t.Helper()
	p, err := tryStartProc(dir, env, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tryStartProc starts name with env added to its environment and waits
// until it listens on its --port.
func tryStartProc(dir string, env []string, name string, args ...string) (*Proc, error) {
	p := &Proc{Dir: dir, out: &bytes.Buffer{}, done: make(chan struct{})}
	port, tlsPort := 0, 0
	for i, a := range args {
		switch a {
		case "--port":
			port, _ = strconv.Atoi(args[i+1])
		case "--tls-port":
			tlsPort, _ = strconv.Atoi(args[i+1])
		}
	}
	if port == 0 {
		port = tlsPort // TLS only: a TCP connect still says it listens
	}
	p.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	p.cmd = exec.Command(name, args...)
	if len(env) > 0 {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout = lockedWriter{p}
	p.cmd.Stderr = lockedWriter{p}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	deadline := time.Now().Add(startTimeout)
	for {
		c, err := net.DialTimeout("tcp", p.Addr, time.Second)
		if err == nil {
			c.Close()
			if mine, known := listensOn(p.cmd.Process.Pid, port); mine || !known {
				break
			}
		}
		select {
		case <-p.done:
			return nil, &startError{name: name, out: p.Output()}
		default:
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, fmt.Errorf("%s did not listen on %s in %v:\n%s", name, p.Addr, startTimeout, p.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p, nil
}

// startError is a server that exited as it started.
type startError struct{ name, out string }

func (e *startError) Error() string { return fmt.Sprintf("%s exited at start:\n%s", e.name, e.out) }

// startOnFreePort starts a server on a port freePort found, and again on
// another if something took that one between freePort closing it and the
// server binding it (a client's connection can, with tests side by side).
func startOnFreePort(t testing.TB, dir, name string, args func(port int) []string) *Proc {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := tryStartProc(dir, nil, name, args(freePort(t))...)
		var se *startError
		if err == nil {
			return p
		}
		if !errors.As(err, &se) || !strings.Contains(strings.ToLower(se.out), "address already in use") || attempt == 5 {
			t.Fatal(err)
		}
	}
}

// StartQlessd starts qlessd on a free port with its data in dir ("" for a
// fresh temporary directory). It is stopped when the test ends. Its HTTP
// listener is off, as tests run side by side and its default port would be
// taken, unless extra gives --http-addr (StartQlessdHTTP).
func StartQlessd(t testing.TB, dir string, extra ...string) *Proc {
	t.Helper()
	return startQlessd(t, dir, func() []string { return extra })
}

// startQlessd is StartQlessd with the extra arguments made anew for each
// try at a free port.
func startQlessd(t testing.TB, dir string, extra func() []string) *Proc {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	bin := binary(t)
	p := startOnFreePort(t, dir, bin, func(port int) []string {
		more := extra()
		args := append([]string{"--port", strconv.Itoa(port), "--dir", dir, "--loglevel", "warning"}, modeArgs()...)
		if !slices.Contains(more, "--http-addr") {
			args = append(args, "--http-addr", "")
		}
		return append(args, more...)
	})
	t.Cleanup(func() { p.Stop() })
	return p
}

// StartQlessdHTTP is StartQlessd with the HTTP listener on a free port of
// host (say 127.0.0.1), whose base URL it returns.
func StartQlessdHTTP(t testing.TB, dir, host string, extra ...string) (*Proc, string) {
	t.Helper()
	var addr string
	p := startQlessd(t, dir, func() []string {
		// A new HTTP port on each try: the port taken may be this one,
		// and trying it again would fail alike.
		addr = net.JoinHostPort(host, strconv.Itoa(freePort(t)))
		return append([]string{"--http-addr", addr}, extra...)
	})
	return p, "http://" + addr
}

// redisServerPath finds redis-server, failing (never skipping) with advice
// when it is missing: differential tests are part of the suite.
func redisServerPath(t testing.TB) string {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server not found: differential tests need Redis 7.0 " +
			"(apt-get install -y redis-server, or set REDIS_SERVER=/path/to/redis-server)")
	}
	return p
}

// StartRedis starts a real redis-server without persistence on a free port.
func StartRedis(t testing.TB, extra ...string) *Proc {
	t.Helper()
	dir := t.TempDir()
	p := startOnFreePort(t, dir, redisServerPath(t), func(port int) []string {
		return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no"}, extra...)
	})
	t.Cleanup(func() { p.Stop() })
	return p
}

// Stop sends SIGTERM and waits.
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill sends SIGKILL and waits.
func (p *Proc) Kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pair is a qlessd and a redis-server with a raw connection to each.
type Pair struct {
	Q, R   *Raw
	QP, RP *Proc
}

// StartPair starts both servers for a differential test.
func StartPair(t testing.TB) *Pair {
	t.Helper()
	qp, rp := StartQlessd(t, ""), StartRedis(t)
	return &Pair{Q: DialRaw(t, qp.Addr), R: DialRaw(t, rp.Addr), QP: qp, RP: rp}
}

// RestartQlessd stops qlessd and starts it again on the same data
// directory, for tests of what survives a restart.
func (p *Pair) RestartQlessd(t testing.TB) {
	t.Helper()
	p.QP.Stop()
	p.QP = StartQlessd(t, p.QP.Dir)
	p.Q = DialRaw(t, p.QP.Addr)
}

// Same sends one command to both servers and fails the test unless the raw
// replies are identical. It returns the reply.
func (p *Pair) Same(t testing.TB, args ...string) string {
	t.Helper()
	q := p.Q.Do(t, args...)
	r := p.R.Do(t, args...)
	if q != r {
		t.Errorf("%s\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
	}
	return r
}

// sameAll runs Same for each command in turn.
func sameAll(t *testing.T, p *Pair, cmds [][]string) {
	t.Helper()
	for _, c := range cmds {
		p.Same(t, c...)
	}
}

// SameSorted is Same for replies whose array order Redis leaves unspecified
// (SMEMBERS, KEYS, ...): top-level array elements are compared as sorted.
func (p *Pair) SameSorted(t testing.TB, args ...string) {
	t.Helper()
	q := p.Q.Do(t, args...)
	r := p.R.Do(t, args...)
	if SortedReply(q) != SortedReply(r) {
		t.Errorf("%s (sorted)\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
	}
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}
