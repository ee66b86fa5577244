package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// netnsPair is two network namespaces joined by a veth pair: a server
// side and a client side, so that a server sees its client come from a
// real network address over a real link, not over loopback. Everything
// lives inside the namespaces, which the test creates under unique names
// and deletes: the machine's own namespace gains no interface or address.
type netnsPair struct {
	srv, cli     string // namespace names
	srvIP, cliIP string
}

// newNetnsPair creates the namespaces, or skips the test when it cannot:
// they need root and iproute2's ip.
func newNetnsPair(t *testing.T) *netnsPair {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root; run as root to test clients from beyond loopback over a veth pair")
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("iproute2's ip is not installed; it creates the network namespaces")
	}
	b := make([]byte, 4)
	rand.Read(b)
	id := hex.EncodeToString(b)
	n := &netnsPair{srv: "qlessd-test-" + id + "-s", cli: "qlessd-test-" + id + "-c", srvIP: "10.233.0.1", cliIP: "10.233.0.2"}
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %q: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command(ip, "netns", "del", n.srv).Run() // deletes the veth pair too
		exec.Command(ip, "netns", "del", n.cli).Run()
	})
	run("netns", "add", n.srv)
	run("netns", "add", n.cli)
	// Created inside the namespaces, never in the machine's own.
	run("link", "add", "qv"+id+"s", "netns", n.srv, "type", "veth", "peer", "name", "qv"+id+"c", "netns", n.cli)
	for _, side := range []struct{ ns, dev, addr string }{{n.srv, "qv" + id + "s", n.srvIP}, {n.cli, "qv" + id + "c", n.cliIP}} {
		run("-n", side.ns, "addr", "add", side.addr+"/30", "dev", side.dev)
		run("-n", side.ns, "link", "set", side.dev, "up")
		run("-n", side.ns, "link", "set", "lo", "up")
	}
	return n
}

// dial connects from inside namespace ns: the socket is made on a thread
// moved into it, and stays there once the thread is gone.
func dialIn(ns string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			c   net.Conn
			err error
		}
		done := make(chan result, 1)
		go func() {
			// Never unlocked: the thread, now in another namespace, ends
			// with this goroutine instead of running others.
			runtime.LockOSThread()
			f, err := os.Open("/var/run/netns/" + ns)
			if err != nil {
				done <- result{nil, err}
				return
			}
			defer f.Close()
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				done <- result{nil, fmt.Errorf("setns %s: %w", ns, err)}
				return
			}
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			done <- result{c, err}
		}()
		r := <-done
		return r.c, r.err
	}
}

// startQlessdIn starts qlessd inside namespace ns and waits until it
// answers on its loopback there. Addr is 127.0.0.1:port inside ns.
func startQlessdIn(t *testing.T, ns string, extra ...string) *Proc {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t) // free here; the namespace has its own ports, all free
	args := append([]string{"netns", "exec", ns, binary(t), "--port", fmt.Sprint(port), "--dir", dir, "--loglevel", "warning"}, modeArgs()...)
	p := &Proc{Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: dir, out: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command("ip", append(args, extra...)...) // ip netns exec execs qlessd: signals reach it
	p.cmd.Stdout, p.cmd.Stderr = lockedWriter{p}, lockedWriter{p}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.Stop)
	dial := dialIn(ns)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		c, err := dial(ctx, "tcp", p.Addr)
		cancel()
		if err == nil {
			c.Close()
			return p
		}
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("qlessd in %s did not listen on %s (%v):\n%s", ns, p.Addr, err, p.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rawIn is a Raw connection made from inside namespace ns.
func rawIn(t *testing.T, ns, addr string) *Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dialIn(ns)(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Raw{c: c, rd: bufio.NewReader(c)}
}
