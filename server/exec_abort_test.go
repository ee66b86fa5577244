package server

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

// A refused EXEC (wrong arity, in subscribe mode) answers as Redis 7.0
// does, in MULTI or not: EXECABORT naming the refusal, and the
// transaction and the watches end.
func TestRefusedExecAborts(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		srv := startServer(t, commands.Default(), loop)
		tc := dialTest(t, srv)
		arity := "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command"
		for _, step := range [][2]string{
			{"MULTI", "+OK"},
			{"EXEC x", arity},
			{"EXEC", "-ERR EXEC without MULTI"},
			{"EXEC x", arity},
			{"SET w 1", "+OK"},
			{"WATCH w", "+OK"},
			{"EXEC x", arity},
			{"SET w 2", "+OK"},
			{"MULTI", "+OK"},
			{"GET w", "+QUEUED"},
			{"EXEC", "*1 $1 2"}, // the watch ended with the refused EXEC
		} {
			if got := strings.Join(tc.do(t, strings.Fields(step[0])...), " "); got != step[1] {
				t.Fatalf("%s: got %q, want %q", step[0], got, step[1])
			}
		}
		if err := tc.send("SUBSCRIBE", "c"); err != nil {
			t.Fatal(err)
		}
		for range 6 { // *3 $9 subscribe $1 c :1
			if _, err := tc.rd.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		want := "-EXECABORT Transaction discarded because of: Can't execute 'exec': " +
			"only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
		if got := strings.Join(tc.do(t, "EXEC"), " "); got != want {
			t.Fatalf("EXEC subscribed: got %q, want %q", got, want)
		}
	})
}
