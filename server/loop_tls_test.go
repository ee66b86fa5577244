package server

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/internal/testpki"
	"github.com/qlessd/qlessd/tlsconf"
)

// startTLSServer starts an event-loop server serving TLS only, with a
// certificate for 127.0.0.1 (internal/testpki), and gives a client
// configuration trusting it.
func startTLSServer(t *testing.T, ioUring bool) (*Server, *tls.Config) {
	t.Helper()
	f, err := testpki.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := tlsconf.Load(tlsconf.Params{CertFile: f.Cert, KeyFile: f.Key, CACertFile: f.CA, AuthClients: "no"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv, err := New(Config{Bind: "127.0.0.1", Port: 0, TLSPort: port, TLS: tlsconf.NewHolder(m), Dir: ":memory:",
		EventLoop: true, IOUring: ioUring, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, commands.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, f.ClientConfig()
}

// loopTLSSessions counts the sessions a loop serves over TLS, and those
// that left it.
func loopTLSSessions(s *Server) (inLoop, left int) {
	for _, sess := range s.allSessions() {
		if sess.lc == nil || sess.lc.tls == nil {
			continue
		}
		if sess.lc.graduated() == nil {
			inLoop++
		} else {
			left++
		}
	}
	return inLoop, left
}

// A TLS client is served by the event loop, pipelines and long values
// included, until a command takes it out of the loop, as a plain one is;
// then its goroutine carries on the same TLS session. Through io_uring
// or without.
func TestLoopServesTLS(t *testing.T) {
	for _, ring := range []bool{true, false} {
		t.Run(map[bool]string{true: "io_uring", false: "epoll"}[ring], func(t *testing.T) {
			srv, conf := startTLSServer(t, ring)
			c, err := tls.Dial("tcp", srv.TLSAddr().String(), conf)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Minute))
			rd := bufio.NewReader(c)
			expect := func(want string) {
				t.Helper()
				buf := make([]byte, len(want))
				if _, err := io.ReadFull(rd, buf); err != nil || string(buf) != want {
					t.Fatalf("read %q, %v; want %q", buf, err, want)
				}
			}
			long := strings.Repeat("x", 3<<20)
			pipeline := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(len(long)) + "\r\n" + long + "\r\n" +
				strings.Repeat("*2\r\n$6\r\nSTRLEN\r\n$1\r\nk\r\n", 1000)
			if _, err := c.Write([]byte(pipeline)); err != nil {
				t.Fatal(err)
			}
			expect("+OK\r\n" + strings.Repeat(":3145728\r\n", 1000))
			c.Write([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
			expect("$3145728\r\n" + long + "\r\n")
			if in, left := loopTLSSessions(srv); in != 1 || left != 0 {
				t.Fatalf("after a pipeline: %d TLS clients in the loop, %d out of it; want 1, 0", in, left)
			}
			c.Write([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$4\r\n0.01\r\n*1\r\n$4\r\nPING\r\n"))
			expect("*-1\r\n+PONG\r\n")
			if in, left := loopTLSSessions(srv); in != 0 || left != 1 {
				t.Fatalf("after BLPOP: %d TLS clients in the loop, %d out of it; want 0, 1", in, left)
			}
		})
	}
}

// Many TLS clients sending at once are read and written together (with
// io_uring, in one ring call a turn), each with pipelines longer than a
// turn's share of input, so that records the ring read wait for the next
// turn; every client gets its own replies, whole and in order.
func TestLoopServesManyTLSClients(t *testing.T) {
	for _, ring := range []bool{true, false} {
		t.Run(map[bool]string{true: "io_uring", false: "epoll"}[ring], func(t *testing.T) {
			srv, conf := startTLSServer(t, ring)
			const clients, rounds, incrs = 12, 15, 400
			errs := make(chan error, clients)
			for id := range clients {
				go func() { errs <- tlsPipelines(srv.TLSAddr().String(), conf, id, rounds, incrs) }()
			}
			for range clients {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// tlsPipelines is one client of TestLoopServesManyTLSClients.
func tlsPipelines(addr string, conf *tls.Config, id, rounds, incrs int) error {
	c, err := tls.Dial("tcp", addr, conf)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	rd := bufio.NewReader(c)
	key, counter := "k"+strconv.Itoa(id), "c"+strconv.Itoa(id)
	n := 0
	for r := range rounds {
		value := strings.Repeat(strconv.Itoa(id%10), 20000+r)
		var req, want strings.Builder
		req.WriteString("*3\r\n$3\r\nSET\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n$" +
			strconv.Itoa(len(value)) + "\r\n" + value + "\r\n")
		want.WriteString("+OK\r\n")
		for range incrs {
			n++
			req.WriteString("*2\r\n$4\r\nINCR\r\n$" + strconv.Itoa(len(counter)) + "\r\n" + counter + "\r\n")
			want.WriteString(":" + strconv.Itoa(n) + "\r\n")
		}
		req.WriteString("*2\r\n$3\r\nGET\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n")
		want.WriteString("$" + strconv.Itoa(len(value)) + "\r\n" + value + "\r\n")
		if _, err := c.Write([]byte(req.String())); err != nil {
			return err
		}
		got := make([]byte, want.Len())
		if _, err := io.ReadFull(rd, got); err != nil {
			return fmt.Errorf("client %d round %d: %v", id, r, err)
		}
		if string(got) != want.String() {
			return fmt.Errorf("client %d round %d: replies differ from what was sent", id, r)
		}
	}
	return nil
}
