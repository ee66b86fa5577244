package server

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

func TestPanickingCommandKeepsServerUp(t *testing.T) {
	table := commands.Default()
	table.Add(&commands.Cmd{Name: "boom", Arity: 1, Flags: commands.ReadOnly, Run: func(c *commands.Ctx, args [][]byte) {
		var m map[string]int
		m["x"] = 1 // nil map write: a runtime panic
	}})
	srv, err := New(Config{Bind: "127.0.0.1", Port: 0, Dir: ":memory:", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, table)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	roundTrip := func(cmd string) (string, net.Conn) {
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(cmd + "\r\n"))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line, c
	}
	line, c := roundTrip("BOOM")
	c.Close()
	if !strings.HasPrefix(line, "-ERR internal error running 'boom'") {
		t.Fatalf("reply to a panicking command: %q", line)
	}
	line, c = roundTrip("PING")
	c.Close()
	if line != "+PONG\r\n" {
		t.Fatalf("server not answering after a panic: %q", line)
	}
}
