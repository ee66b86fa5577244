package server

import (
	"net"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// undeliveredTable is the default table with BTAKE, BLPOP whose served
// reply owes a hand-back that reports on handed, and two commands that a
// client pipelines after it to hold the reply back: HOLD returns once the
// server sees the client's connection closed, SHUT once it has shut its
// own sending side, so that the reply's write fails.
func undeliveredTable(handed chan<- string) *commands.Table {
	table := commands.Default()
	blpop := table.Lookup([]byte("blpop"))
	btake := *blpop
	btake.Name = "btake"
	btake.Run = func(c *commands.Ctx, args [][]byte) {
		blpop.Run(c, args)
		if c.Block == nil && !c.TimedOut {
			key := string(args[1])
			c.Undelivered = func() { handed <- key }
		}
	}
	table.Add(&btake)
	table.Add(&commands.Cmd{Name: "hold", Arity: 1, Flags: commands.NoTx, Run: func(c *commands.Ctx, args [][]byte) {
		sess := c.Sess.(*session)
		for i := 0; i < 20000 && !connClosed(sess.netConn); i++ {
			time.Sleep(time.Millisecond)
		}
		c.OK()
	}})
	table.Add(&commands.Cmd{Name: "shut", Arity: 1, Flags: commands.NoTx, Run: func(c *commands.Ctx, args [][]byte) {
		c.Sess.(*session).own.nc.(*net.TCPConn).CloseWrite()
		c.OK()
	}})
	return table
}

func waitSessions(t *testing.T, srv *Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		srv.mu.Lock()
		have := len(srv.sessions)
		srv.mu.Unlock()
		if have == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions, want %d", have, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func expectHandBack(t *testing.T, handed <-chan string, key string) {
	t.Helper()
	select {
	case got := <-handed:
		if got != key {
			t.Fatalf("handed back %s, want %s", got, key)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the reply popping from %s was never handed back", key)
	}
}

// A served reply that cannot reach its client runs its hand-back: the
// client closed its connection before the reply left (served after
// waiting, or at once), or writing the reply failed. One whose reply left
// hands nothing back, even when the client closes right after.
func TestUndeliveredReplyHandsBack(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		handed := make(chan string, 8)
		srv := startServer(t, undeliveredTable(handed), loop)
		pusher := dialTest(t, srv)

		// Served after waiting, gone before the reply left.
		a := dialTest(t, srv)
		a.c.Write([]byte("BTAKE k1 0\r\nHOLD\r\n"))
		waitCount(t, srv, 1)
		pusher.do(t, "RPUSH", "k1", "v")
		a.c.Close()
		expectHandBack(t, handed, "k1")

		// Served at once, gone before the reply left.
		pusher.do(t, "RPUSH", "k2", "v")
		b := dialTest(t, srv)
		b.c.Write([]byte("BTAKE k2 0\r\nHOLD\r\n"))
		for deadline := time.Now().Add(time.Minute); pusher.do(t, "LLEN", "k2")[0] != ":0"; {
			if time.Now().After(deadline) {
				t.Fatal("BTAKE never ran")
			}
			time.Sleep(time.Millisecond)
		}
		b.c.Close()
		expectHandBack(t, handed, "k2")

		// The write fails.
		c := dialTest(t, srv)
		c.c.Write([]byte("BTAKE k3 0\r\nSHUT\r\n"))
		waitCount(t, srv, 1)
		pusher.do(t, "RPUSH", "k3", "v")
		expectHandBack(t, handed, "k3")

		// Delivered: nothing handed back.
		d := dialTest(t, srv)
		d.c.Write([]byte("BTAKE k4 0\r\nPING\r\n"))
		waitCount(t, srv, 1)
		pusher.do(t, "RPUSH", "k4", "v")
		if r, err := d.read(); err != nil || len(r) != 5 || r[4] != "v" {
			t.Fatalf("BTAKE reply %q, %v", r, err)
		}
		if r, err := d.read(); err != nil || r[0] != "+PONG" {
			t.Fatalf("PING reply %q, %v", r, err)
		}
		d.c.Close()
		waitSessions(t, srv, 1)
		select {
		case got := <-handed:
			t.Fatalf("a delivered reply handed %s back", got)
		default:
		}
	})
}
