package tests

// CONFIG SET port and bind at run time, as Redis 7.0 allows them: the
// listener moves, connected clients stay, and a port or address that
// cannot be bound changes nothing and gets Redis's error text. Each step
// runs on qlessd and on redis-server 7.0.

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// portServer is one of the pair: its process, a connection made before
// any move, and the address it serves now.
type portServer struct {
	name string
	c    *Raw
	addr string
}

func (s *portServer) port() string {
	_, p, _ := net.SplitHostPort(s.addr)
	return p
}

// stopsAccepting waits until nothing accepts at addr any more.
func stopsAccepting(t *testing.T, name, addr string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s still accepts after the move", name, addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// holdPort listens on a free loopback port, for the tests to find taken.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// both sends one command to each server and fails unless both replied
// want.
func both(t *testing.T, servers []*portServer, want string, args ...string) {
	t.Helper()
	for _, s := range servers {
		if got := s.c.Do(t, args...); got != want {
			t.Errorf("%s: %s: %q, want %q", s.name, quoteArgs(args), got, want)
		}
	}
}

// portIs fails unless CONFIG GET port gives each server's own port.
func portIs(t *testing.T, servers []*portServer, when string) {
	t.Helper()
	for _, s := range servers {
		if got, want := s.c.Do(t, "CONFIG", "GET", "port"), bulkPair("port", s.port()); got != want {
			t.Errorf("%s: port %s: %q, want %q", s.name, when, got, want)
		}
	}
}

func bulkPair(name, value string) string {
	return "*2\r\n$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n$" + strconv.Itoa(len(value)) + "\r\n" + value + "\r\n"
}

func TestConfigSetPortDifferential(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, ""), StartRedis(t)
	servers := []*portServer{{name: "qlessd", c: DialRaw(t, q.Addr), addr: q.Addr}, {name: "redis", c: DialRaw(t, r.Addr), addr: r.Addr}}

	taken := holdPort(t)
	both(t, servers, "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n",
		"CONFIG", "SET", "port", taken)
	portIs(t, servers, "after a failed move")
	for _, s := range servers {
		DialRaw(t, s.addr).Do(t, "PING")
	}
	both(t, servers, "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n",
		"CONFIG", "SET", "bind", "192.0.2.1")
	both(t, servers, bulkPair("bind", "127.0.0.1"), "CONFIG", "GET", "bind")

	for _, s := range servers {
		old := s.addr
		next := moveToFreePort(t, s.c, s.name)
		s.addr = net.JoinHostPort("127.0.0.1", next)
		stopsAccepting(t, s.name, old)
	}
	both(t, servers, "+PONG\r\n", "PING")
	portIs(t, servers, "after the move")
	for _, s := range servers {
		if got := DialRaw(t, s.addr).Do(t, "PING"); got != "+PONG\r\n" {
			t.Errorf("%s: PING on the new port: %q", s.name, got)
		}
	}

	// An address that overlaps the old one on the same port.
	both(t, servers, "+OK\r\n", "CONFIG", "SET", "bind", "0.0.0.0")
	both(t, servers, bulkPair("bind", "0.0.0.0"), "CONFIG", "GET", "bind")
	both(t, servers, "+PONG\r\n", "PING")
	for _, s := range servers {
		if got := DialRaw(t, s.addr).Do(t, "PING"); got != "+PONG\r\n" {
			t.Errorf("%s: PING after CONFIG SET bind: %q", s.name, got)
		}
	}
	both(t, servers, "+OK\r\n", "CONFIG", "SET", "bind", "127.0.0.1")
	both(t, servers, "+PONG\r\n", "PING")
}

// TestConfigSetPortRewrite: CONFIG REWRITE writes the port clients now
// connect to, and the log says where that is.
func TestConfigSetPortRewrite(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "timeout 0\n")
	q := startWithFile(t, file, "", "--http-addr", "")
	c := DialRaw(t, q.Addr)
	next := moveToFreePort(t, c, "qlessd")
	if got := c.Do(t, "CONFIG", "SET", "port", "0"); !strings.HasPrefix(got, "-ERR CONFIG SET failed (possibly related to argument 'port') - ") {
		t.Errorf("CONFIG SET port 0 at run time: %q", got)
	}
	if got := c.Do(t, "CONFIG", "REWRITE"); got != "+OK\r\n" {
		t.Fatalf("CONFIG REWRITE: %q", got)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nport "+next+"\n") {
		t.Errorf("rewritten file lacks port %s:\n%s", next, b)
	}
	want := "clients now connect here\" addr=127.0.0.1:" + next
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(q.Output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, q.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConfigSetPortCluster: a cluster node whose client address is the
// bind:port it announced refuses to move; one given
// cluster-advertise-client moves, and keeps leading.
func TestConfigSetPortCluster(t *testing.T) {
	t.Parallel()
	derived := startCluster(t, 1)
	n := derived.leader(waitTimeout)
	next := strconv.Itoa(freePort(t))
	want := "-ERR CONFIG SET failed (possibly related to argument 'port') - port can't change in a cluster without cluster-advertise-client: the other nodes relay clients to bind:port\r\n"
	if got := DialRaw(t, n.addr()).Do(t, "CONFIG", "SET", "port", next); got != want {
		t.Errorf("CONFIG SET port in a cluster: %q, want %q", got, want)
	}

	told := startCluster(t, 1, "--cluster-advertise-client", "qlessd.example:6379")
	n = told.leader(waitTimeout)
	c := DialRaw(t, n.addr())
	next = moveToFreePort(t, c, "cluster node with cluster-advertise-client")
	if got := DialRaw(t, "127.0.0.1:"+next).Do(t, "SET", "k", "v"); got != "+OK\r\n" {
		t.Errorf("SET on the moved node: %q", got)
	}
	if got := c.Do(t, "GET", "k"); got != "$1\r\nv\r\n" {
		t.Errorf("GET on the connection made before the move: %q", got)
	}
}

// TestTLSConfigSetBind: CONFIG SET bind moves the TLS listener with the
// plain one, on qlessd as on redis-server 7.0; TLS clients connected
// before stay.
func TestTLSConfigSetBind(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	files := []string{"--tls-cert-file", p.file("server.crt"), "--tls-key-file", p.file("server.key"),
		"--tls-ca-cert-file", p.caFile}
	conf := clientConfig(p.ca, p.client)
	ctx := context.Background()
	qTLS, rTLS := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
	q := StartQlessd(t, "", append([]string{"--tls-port", qTLS}, files...)...)
	r := StartRedis(t, append([]string{"--tls-port", rTLS}, files...)...)
	for _, srv := range []struct{ who, plain, tlsPort string }{{"qlessd", q.Addr, qTLS}, {"redis-server", r.Addr, rTLS}} {
		ctl := DialRaw(t, srv.plain)
		early := tlsClient("127.0.0.1:"+srv.tlsPort, conf)
		id, err := early.ClientID(ctx).Result()
		if err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		for _, bind := range []string{"0.0.0.0", "127.0.0.1"} {
			if got := ctl.Do(t, "CONFIG", "SET", "bind", bind); got != "+OK\r\n" {
				t.Fatalf("%s: CONFIG SET bind %s: %q", srv.who, bind, got)
			}
			if err := tlsPing("127.0.0.1:"+srv.tlsPort, conf); err != nil {
				t.Errorf("%s: PING over TLS after CONFIG SET bind %s: %v", srv.who, bind, err)
			}
			// The same connection: go-redis would dial a new one unseen.
			if got, err := early.ClientID(ctx).Result(); err != nil || got != id {
				t.Errorf("%s: the TLS client of before CONFIG SET bind %s: id %d, %v (was %d)", srv.who, bind, got, err, id)
			}
		}
		early.Close()
	}
}

// moveToFreePort moves c's server to a port freePort finds, and to
// another if something took that one before the server could bind it
// (the refusal Redis gives a taken port); it returns the port.
func moveToFreePort(t *testing.T, c *Raw, name string) string {
	t.Helper()
	const taken = "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n"
	for attempt := 1; ; attempt++ {
		next := strconv.Itoa(freePort(t))
		got := c.Do(t, "CONFIG", "SET", "port", next)
		if got == "+OK\r\n" {
			return next
		}
		if got != taken || attempt == 5 {
			t.Fatalf("%s: CONFIG SET port %s: %q", name, next, got)
		}
	}
}
