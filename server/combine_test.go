package server

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

// Writes from many connections run in shared batches; each client must get
// its own command's reply, every write must land once, and a command that
// panics part way must fail only its own connection.
func TestBatchedWritesKeepTheirOwnReplies(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		table := commands.Default()
		table.Add(&commands.Cmd{Name: "boomw", Arity: 1, Flags: commands.Write, Run: func(c *commands.Ctx, args [][]byte) {
			c.Tx.SetString("boomw-wrote", "1", 0, false)
			panic("boomw: a write that fails part way")
		}})
		srv := startServer(t, table, loop)

		const clients, each = 40, 200
		var wg sync.WaitGroup
		seen := make([][]int, clients)
		errs := make(chan error, clients+1)
		dial := func() (net.Conn, bool) {
			c, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				errs <- err
			}
			return c, err == nil
		}
		for i := 0; i < clients; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				c, ok := dial()
				if !ok {
					return
				}
				defer c.Close()
				r := bufio.NewReader(c)
				for j := 0; j < each; j++ {
					fmt.Fprintf(c, "INCR counter\r\nRPUSH list:%d %d\r\n", i, j)
					line, _ := r.ReadString('\n')
					n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, ":")))
					if err != nil {
						errs <- fmt.Errorf("client %d: INCR reply %q", i, line)
						return
					}
					seen[i] = append(seen[i], n)
					if line, _ = r.ReadString('\n'); line != ":"+strconv.Itoa(j+1)+"\r\n" {
						errs <- fmt.Errorf("client %d: RPUSH reply %q, want :%d", i, line, j+1)
						return
					}
				}
			}(i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, ok := dial()
			if !ok {
				return
			}
			defer c.Close()
			c.Write([]byte("BOOMW\r\n"))
			line, _ := bufio.NewReader(c).ReadString('\n')
			if !strings.HasPrefix(line, "-ERR internal error running 'boomw'") {
				errs <- fmt.Errorf("panicking write in a batch replied %q", line)
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		// Every INCR reply is distinct and they cover 1..clients*each.
		got := map[int]bool{}
		for _, s := range seen {
			for _, n := range s {
				if got[n] {
					t.Fatalf("INCR reply %d given twice", n)
				}
				got[n] = true
			}
		}
		if len(got) != clients*each {
			t.Fatalf("%d distinct INCR replies, want %d", len(got), clients*each)
		}
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		c.Write([]byte("GET counter\r\nGET boomw-wrote\r\n"))
		want := strconv.Itoa(clients * each)
		for _, exp := range []string{"$" + strconv.Itoa(len(want)) + "\r\n", want + "\r\n", "$1\r\n", "1\r\n"} {
			if line, _ := r.ReadString('\n'); line != exp {
				t.Fatalf("after the run: %q, want %q", line, exp)
			}
		}
	})
}
