package server

import (
	"bufio"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds) - 1 // the directory read holds one
}

// A client arriving when the server is out of file descriptors is told
// "max number of clients reached" and closed, as a client past maxclients
// is, neither left waiting nor reset without a word; once descriptors are
// free again, clients are served. The test process is the server's, so
// its own limit is lowered, and every descriptor left taken but one or two.
func TestAcceptOutOfFileDescriptors(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		srv := startServer(t, commands.Default(), loop)
		ping(t, srv.Addr().String())
		// One left: the client's socket takes it, and the server's accept
		// finds none. Two left, in the event loop: accept takes the last,
		// and the loop's copy of the socket finds none.
		free := []int{1}
		if loop {
			free = append(free, 2)
		}
		for _, n := range free {
			got := ""
			// A descriptor may be closed meanwhile (the server's end of the
			// last client, say), and the client served: then again.
			for try := 0; try < 5 && got == ""; try++ {
				got = refusedWhenFull(t, srv, n)
			}
			if got != "-"+commands.ErrMaxClients+"\r\n" {
				t.Errorf("%d descriptors short of the limit: client heard %q", n, got)
			}
			ping(t, srv.Addr().String())
		}
	})
}

// refusedWhenFull lowers the open-file limit, takes every descriptor left
// and gives n back, connects to srv, and returns what the server says
// before it closes the connection, or "" when it serves the client after
// all. It then gives everything back.
func refusedWhenFull(t *testing.T, srv *Server, n int) string {
	t.Helper()
	// The server closes its end of a finished client (the ping, or the
	// client an earlier try had served) on its own time: a descriptor
	// freed while this try holds the rest lets the server serve the
	// client, and one served client spoiled the next try the same way,
	// five times in a row one run in forty. A session is dropped after
	// its socket is closed, so none left means none still to close.
	for deadline := time.Now().Add(time.Minute); len(srv.allSessions()) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open a minute after their clients went", len(srv.allSessions()))
		}
	}
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &was); err != nil {
		t.Fatal(err)
	}
	limit := uint64(openFDs(t) + 16)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: was.Max}); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &was)
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		held = append(held, f)
	}
	for _, f := range held[len(held)-n:] {
		f.Close()
	}
	held = held[:len(held)-n]
	c, err := net.DialTimeout("tcp", srv.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	type reply struct {
		got []byte
		err error
	}
	heard := make(chan reply, 1)
	go func() {
		got, err := io.ReadAll(c)
		heard <- reply{got, err}
	}()
	for {
		select {
		case r := <-heard:
			if r.err != nil {
				t.Fatalf("%v after %q", r.err, r.got)
			}
			return string(r.got)
		case <-time.After(time.Millisecond):
			if hasSession(srv, c.LocalAddr().String()) {
				c.Close()
				<-heard
				return ""
			}
		}
	}
}

// hasSession reports whether srv has a session for the client at addr.
func hasSession(srv *Server, addr string) bool {
	for _, sess := range srv.allSessions() {
		if sess.addr == addr {
			return true
		}
	}
	return false
}

func ping(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	c.Write([]byte("PING\r\n"))
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
		t.Fatalf("PING: %q, %v", line, err)
	}
}
