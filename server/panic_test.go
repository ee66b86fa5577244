package server

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

func TestPanickingCommandKeepsServerUp(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		table := commands.Default()
		table.Add(&commands.Cmd{Name: "boom", Arity: 1, Flags: commands.ReadOnly, Run: func(c *commands.Ctx, args [][]byte) {
			panic("boom: a command that fails")
		}})
		table.Add(&commands.Cmd{Name: "boomw", Arity: 1, Flags: commands.Write, Run: func(c *commands.Ctx, args [][]byte) {
			panic("boomw: a write that fails")
		}})
		srv := startServer(t, table, loop)
		roundTrip := func(cmd string) (string, net.Conn) {
			c, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte(cmd + "\r\n"))
			line, _ := bufio.NewReader(c).ReadString('\n')
			return line, c
		}
		for _, name := range []string{"boom", "boomw"} {
			line, c := roundTrip(strings.ToUpper(name))
			c.Close()
			if !strings.HasPrefix(line, "-ERR internal error running '"+name+"'") {
				t.Fatalf("reply to a panicking command: %q", line)
			}
			line, c = roundTrip("PING")
			c.Close()
			if line != "+PONG\r\n" {
				t.Fatalf("server not answering after a panic: %q", line)
			}
		}
	})
}
