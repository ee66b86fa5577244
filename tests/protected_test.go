package tests

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// outsideAddr is a non-loopback IPv4 address of this machine, for clients
// that protected mode must tell from local ones.
func outsideAddr(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no address beyond loopback")
	return ""
}

// hello connects to addr. A client expected to be refused only reads, all
// there is until the server closes the connection: a request would be left
// unread, and the close would then reset the connection, taking the reply
// with it. Any other sends PING and reads the reply.
func hello(t *testing.T, addr string, refused bool) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	if refused {
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%s: %v after %q", addr, err, got)
		}
		return string(got) + "<closed>"
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v after %q", addr, err, got)
	}
	return got
}

// Protected mode is checked on each new connection, as Redis does: once a
// password is dropped, or protected mode turned on, with CONFIG SET,
// clients from beyond the loopback interface are refused with Redis's
// words, and local ones still served.
func TestProtectedModeAtRunTime(t *testing.T) {
	t.Parallel()
	outside := outsideAddr(t)
	q := StartQlessd(t, "", "--bind", "0.0.0.0", "--requirepass", "x")
	r := StartRedis(t, "--bind", "0.0.0.0", "--requirepass", "x")
	_, qPort, _ := net.SplitHostPort(q.Addr)
	_, rPort, _ := net.SplitHostPort(r.Addr)
	qAdmin, rAdmin := DialRaw(t, q.Addr), DialRaw(t, r.Addr)
	qAdmin.Do(t, "AUTH", "x")
	rAdmin.Do(t, "AUTH", "x")
	for _, st := range []struct {
		config         []string // CONFIG SET before connecting, if any
		local, refused bool
		want           string
	}{
		{nil, false, false, "-NOAUTH Authentication required.\r\n"},
		{[]string{"requirepass", ""}, false, true, "-" + protectedDenied + "\r\n<closed>"},
		{nil, true, false, "+PONG\r\n"},
		{[]string{"protected-mode", "no"}, false, false, "+PONG\r\n"},
		{[]string{"protected-mode", "yes"}, false, true, "-" + protectedDenied + "\r\n<closed>"},
		{[]string{"requirepass", "y"}, false, false, "-NOAUTH Authentication required.\r\n"},
	} {
		if st.config != nil {
			args := append([]string{"CONFIG", "SET"}, st.config...)
			qGot, rGot := qAdmin.Do(t, args...), rAdmin.Do(t, args...)
			if qGot != "+OK\r\n" || rGot != qGot {
				t.Fatalf("%q: qlessd %q, redis %q", args, qGot, rGot)
			}
		}
		qHost, rHost := net.JoinHostPort(outside, qPort), net.JoinHostPort(outside, rPort)
		if st.local {
			qHost, rHost = q.Addr, r.Addr
		}
		qGot, rGot := hello(t, qHost, st.refused), hello(t, rHost, st.refused)
		if qGot != st.want || rGot != st.want {
			t.Errorf("after %q, from %s:\n  qlessd: %q\n  redis:  %q\n  want:   %q", st.config, qHost, qGot, rGot, st.want)
		}
	}
}

// protectedDenied is Redis 7.0's refusal, as redis-server 7.0.15 sends it.
const protectedDenied = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers to Redis you may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, " +
	"however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
	"2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. " +
	"3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
	"4) Setup a an authentication password for the default user. " +
	"NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."

// A client that never authenticated is served once the password is
// dropped, as on Redis, which asks for AUTH only while one is set; HELLO
// still wants the client authenticated, on both.
func TestDroppedPasswordServesUnauthenticatedClients(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, "", "--requirepass", "x"), StartRedis(t, "--requirepass", "x")
	for _, p := range []*Proc{q, r} {
		waiting, admin := DialRaw(t, p.Addr), DialRaw(t, p.Addr)
		for _, c := range []struct {
			conn *Raw
			args []string
			want string
		}{
			{waiting, []string{"PING"}, "-NOAUTH Authentication required.\r\n"},
			{admin, []string{"AUTH", "x"}, "+OK\r\n"},
			{admin, []string{"CONFIG", "SET", "requirepass", ""}, "+OK\r\n"},
			{waiting, []string{"PING"}, "+PONG\r\n"},
			{waiting, []string{"HELLO", "2"}, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"},
			{admin, []string{"CONFIG", "SET", "requirepass", "y"}, "+OK\r\n"},
			{waiting, []string{"PING"}, "-NOAUTH Authentication required.\r\n"},
		} {
			if got := c.conn.Do(t, c.args...); got != c.want {
				t.Errorf("%s %q: %q, want %q", p.Addr, c.args, got, c.want)
			}
		}
	}
}
