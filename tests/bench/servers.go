package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is a started qlessd or redis-server with its data in a temporary
// directory that stop removes.
type server struct {
	kind string // "redis", "qlessd", "cluster" or a cluster's node
	addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
	// nodes are a cluster's qlessd processes (see startCluster); addr is
	// then the leader's client address, and the cluster has no process or
	// directory of its own.
	nodes []*server
}

// running lists every started server so the program can stop them all on
// any way out, a signal included.
var (
	runningMu sync.Mutex
	running   = map[*server]bool{}
)

func stopAll() {
	runningMu.Lock()
	list := make([]*server, 0, len(running))
	for s := range running {
		list = append(list, s)
	}
	runningMu.Unlock()
	for _, s := range list {
		s.stop()
	}
}

func (s *server) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out.Len() < 1<<20 {
		s.out.Write(b)
	}
	return len(b), nil
}

func (s *server) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts kind with the given fsync policy, retrying on another
// port when the chosen one was taken between picking and binding.
func startServer(cfg *config, kind, fsync string) (*server, error) {
	return startServerWith(cfg, kind, fsync, nil)
}

// startServerWith is startServer with extra flags for the server.
func startServerWith(cfg *config, kind, fsync string, extra []string) (*server, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var s *server
		if s, err = startOnce(cfg, kind, fsync, extra); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func startOnce(cfg *config, kind, fsync string, extra []string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "qlessd-bench-"+kind+"-")
	if err != nil {
		return nil, err
	}
	s := &server{kind: kind, dir: dir, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	bin, args := cfg.qlessdBin, qlessdArgs(port, dir, fsync)
	if kind == "redis" {
		bin = cfg.redisBin
		args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "yes", "--appendfsync", fsync,
			"--daemonize", "no", "--loglevel", "warning"}
	}
	if err := s.start(bin, append(args, extra...)); err != nil {
		return nil, err
	}
	if err := s.ready(15*time.Second, "PING"); err != nil {
		return nil, err
	}
	return s, nil
}

// qlessdArgs are the flags of a qlessd the benchmark starts, alone or as a
// cluster's node.
func qlessdArgs(port int, dir, fsync string) []string {
	return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--appendfsync", fsync, "--loglevel", "warning", "--http-addr", ""}
}

// start runs bin in the server's data directory; the directory is removed
// if it cannot start.
func (s *server) start(bin string, args []string) error {
	s.done = make(chan struct{})
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = s.dir
	s.cmd.Stdout = s
	s.cmd.Stderr = s
	// The server dies with this program even when it is killed outright.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(s.dir)
		return fmt.Errorf("start %s: %w", bin, err)
	}
	runningMu.Lock()
	running[s] = true
	runningMu.Unlock()
	go func() { s.cmd.Wait(); close(s.done) }()
	return nil
}

// ready waits until the started server answers probe (a connection's first
// command) without an error, and stops it when it does not in time.
func (s *server) ready(timeout time.Duration, probe ...string) error {
	deadline := time.Now().Add(timeout)
	for {
		if c, err := dial(s.addr); err == nil {
			_, perr := c.do(probe...)
			c.close()
			if perr == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			s.stop()
			return fmt.Errorf("%s exited at start: %s", s.kind, strings.TrimSpace(s.output()))
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("%s did not answer on %s", s.kind, s.addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the server gracefully (SIGTERM, then SIGKILL after 20s) and
// removes its data directory.
func (s *server) stop() {
	if s.kind == "cluster" {
		s.stopNodes()
		return
	}
	runningMu.Lock()
	was := running[s]
	delete(running, s)
	runningMu.Unlock()
	if !was {
		return
	}
	select {
	case <-s.done:
	default:
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.dir)
}

// addrs are the client addresses of the server's processes: a cluster's
// every node.
func (s *server) addrs() []string {
	if s.kind != "cluster" {
		return []string{s.addr}
	}
	var out []string
	for _, n := range s.nodes {
		out = append(out, n.addr)
	}
	return out
}

// dataBytes sums the sizes of the files in the data directory: Redis 7
// keeps its append-only file as several parts in appendonlydir.
func (s *server) dataBytes() int64 {
	var n int64
	filepath.WalkDir(s.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// waitRewrite waits, up to a minute, until the server is neither rewriting
// its data file nor has a rewrite scheduled, and says how long it waited: a
// rewrite started by one cell's writes would otherwise run during the next
// cell, on qlessd's cores (Redis forks a child, which also takes a core
// here), and whichever cell it lands on measures it.
func waitRewrite(addr string) time.Duration {
	start := time.Now()
	for time.Since(start) < time.Minute && !stopping() {
		c, err := dial(addr)
		if err != nil {
			break
		}
		r, err := c.do("INFO", "persistence")
		c.close()
		if err != nil || !rewriting(r.str) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d >= 50*time.Millisecond {
		return d
	}
	return 0
}

// rewriting reads INFO persistence: a rewrite is running or scheduled.
func rewriting(info string) bool {
	for _, line := range strings.Split(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if (k == "aof_rewrite_in_progress" || k == "aof_rewrite_scheduled") && v == "1" {
			return true
		}
	}
	return false
}

// usedMemory reads used_memory from INFO memory after MEMORY PURGE, so
// qlessd's figure is its live heap rather than live data plus garbage the
// collector has not reached yet (on Redis, used_memory is exact either way);
// ok is false when the server does not report it.
func usedMemory(addr string) (int64, bool) {
	c, err := dial(addr)
	if err != nil {
		return 0, false
	}
	defer c.close()
	if _, err := c.do("MEMORY", "PURGE"); err != nil {
		return 0, false
	}
	r, err := c.do("INFO", "memory")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(r.str, "\n") {
		if v, found := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); found {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// buildQlessd builds cmd/qlessd into a temporary directory.
func buildQlessd() (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "qlessd-bench-bin-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "qlessd")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/qlessd").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build ./cmd/qlessd (run from the repository root): %v\n%s", err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// ourScript asks the qlessd binary for its qless script (`qlessd script`).
// A binary without that subcommand would start a server instead, so it runs
// in a scratch directory and is killed as soon as it logs that it is ready.
func ourScript(bin string) (string, error) {
	dir, err := os.MkdirTemp("", "qlessd-bench-script-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "script")
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr := &watchWriter{want: "ready to accept", hit: make(chan struct{})}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || stdout.Len() == 0 {
			return "", errors.New("`qlessd script` printed no script")
		}
		return stdout.String(), nil
	case <-stderr.hit:
	case <-time.After(10 * time.Second):
	}
	cmd.Process.Kill()
	<-done
	return "", errors.New("this qlessd has no `script` subcommand yet")
}

// watchWriter signals once when the text written to it contains want.
type watchWriter struct {
	mu   sync.Mutex
	buf  []byte
	want string
	hit  chan struct{}
	shut bool
}

func (w *watchWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.shut {
		w.buf = append(w.buf, b...)
		if bytes.Contains(w.buf, []byte(w.want)) {
			w.shut = true
			close(w.hit)
		}
	}
	return len(b), nil
}
