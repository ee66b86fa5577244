package tests

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// CONFIG SET tls-port opens, moves and closes the TLS listener at run
// time on qlessd as on redis-server 7.0 with the same certificates: the
// new port serves TLS, the old one is closed while its clients stay, a
// port already taken is refused with Redis's error and changes nothing,
// and 0 closes the listener.
func TestTLSConfigSetPort(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	files := []string{"--tls-cert-file", p.file("server.crt"), "--tls-key-file", p.file("server.key"),
		"--tls-ca-cert-file", p.caFile}
	q, r := StartQlessd(t, "", files...), StartRedis(t, files...)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	conf := clientConfig(p.ca, p.client)
	ctx := context.Background()
	for _, srv := range []struct {
		who   string
		plain string
	}{{"redis-server", r.Addr}, {"qlessd", q.Addr}} {
		ctl := DialRaw(t, srv.plain)
		set := func(port string) string { return ctl.Do(t, "CONFIG", "SET", "tls-port", port) }
		p1, p2 := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
		if got := set(p1); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET tls-port %s: %q", srv.who, p1, got)
		}
		if err := tlsPing("127.0.0.1:"+p1, conf); err != nil {
			t.Fatalf("%s: PING over TLS on the new tls-port: %v", srv.who, err)
		}
		early := tlsClient("127.0.0.1:"+p1, conf)
		if err := early.Ping(ctx).Err(); err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		if got := set(p2); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET tls-port %s: %q", srv.who, p2, got)
		}
		if err := tlsPing("127.0.0.1:"+p2, conf); err != nil {
			t.Errorf("%s: PING over TLS on the moved tls-port: %v", srv.who, err)
		}
		refused(t, srv.who, p1)
		if err := early.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: a client of the old tls-port after the move: %v", srv.who, err)
		}
		early.Close()
		want := "-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to listen on this port. Check server logs.\r\n"
		if got := set(portOf(taken.Addr().String())); got != want {
			t.Errorf("%s: CONFIG SET tls-port of a taken port: %q, want %q", srv.who, got, want)
		}
		if got := ctl.Do(t, "CONFIG", "GET", "tls-port"); !strings.Contains(got, "\r\n"+p2+"\r\n") {
			t.Errorf("%s: CONFIG GET tls-port after the refused SET: %q, want %s", srv.who, got, p2)
		}
		if err := tlsPing("127.0.0.1:"+p2, conf); err != nil {
			t.Errorf("%s: PING over TLS after the refused SET: %v", srv.who, err)
		}
		// One CONFIG SET is all or nothing: the parameter applied before
		// the port that cannot be bound is put back.
		if got := ctl.Do(t, "CONFIG", "SET", "slowlog-max-len", "7", "tls-port", portOf(taken.Addr().String())); got != want {
			t.Errorf("%s: CONFIG SET slowlog-max-len and a taken tls-port: %q, want %q", srv.who, got, want)
		}
		if got := ctl.Do(t, "CONFIG", "GET", "slowlog-max-len"); got != "*2\r\n$15\r\nslowlog-max-len\r\n$3\r\n128\r\n" {
			t.Errorf("%s: slowlog-max-len after the refused CONFIG SET: %q, want 128", srv.who, got)
		}
		if got := set("0"); got != "+OK\r\n" {
			t.Errorf("%s: CONFIG SET tls-port 0: %q", srv.who, got)
		}
		refused(t, srv.who, p2)
	}
}

// A server started without TLS refuses CONFIG SET tls-port until the
// tls-* files are set, then serves TLS there, on qlessd as on
// redis-server.
func TestTLSConfigSetPortWithoutTLS(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	q, r := StartQlessd(t, ""), StartRedis(t)
	for _, srv := range []struct{ who, plain string }{{"redis-server", r.Addr}, {"qlessd", q.Addr}} {
		ctl := DialRaw(t, srv.plain)
		port := strconv.Itoa(freePort(t))
		want := "-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update TLS configuration. Check server logs.\r\n"
		if got := ctl.Do(t, "CONFIG", "SET", "tls-port", port); got != want {
			t.Errorf("%s: CONFIG SET tls-port without certificates: %q, want %q", srv.who, got, want)
		}
		refused(t, srv.who, port)
		if got := ctl.Do(t, "CONFIG", "SET", "tls-cert-file", p.file("server.crt"), "tls-key-file", p.file("server.key"),
			"tls-ca-cert-file", p.caFile); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET of the tls-* files: %q", srv.who, got)
		}
		if got := ctl.Do(t, "CONFIG", "SET", "tls-port", port); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET tls-port with certificates: %q", srv.who, got)
		}
		if err := tlsPing("127.0.0.1:"+port, clientConfig(p.ca, p.client)); err != nil {
			t.Errorf("%s: PING over TLS: %v", srv.who, err)
		}
		if err := tlsPing("127.0.0.1:"+port, clientConfig(p.ca)); err == nil {
			t.Errorf("%s: a client without a certificate was served under tls-auth-clients yes", srv.who)
		}
	}
}

// Serving TLS only (port 0), qlessd keeps its one listener: CONFIG SET
// tls-port is refused there (Redis 7.0 accepts it, and with 0 is left
// listening nowhere).
func TestTLSConfigSetPortTLSOnlyRefused(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	tp := freePort(t)
	q := StartQlessd(t, "", append(p.serverArgs(tp), "--port", "0")...)
	c := tlsClient(q.Addr, clientConfig(p.ca, p.client))
	defer c.Close()
	ctx := context.Background()
	for _, port := range []string{"0", strconv.Itoa(freePort(t))} {
		err := c.ConfigSet(ctx, "tls-port", port).Err()
		if err == nil || !strings.Contains(err.Error(), "tls-port can't change while port is 0") {
			t.Errorf("CONFIG SET tls-port %s serving TLS only: %v", port, err)
		}
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Errorf("PING after the refused SETs: %v", err)
	}
}

// refused checks that nothing listens on 127.0.0.1:port any more.
func refused(t *testing.T, who, port string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err == nil {
		c.Close()
		t.Errorf("%s: port %s still accepts connections", who, port)
	}
}
