package server

import (
	"runtime"

	"github.com/qlessd/qlessd/commands"
)

// addDebug installs DEBUG GOROUTINES, which tests use to check that closed
// connections leave no goroutine behind. Any other DEBUG subcommand goes to
// the table's own DEBUG when there is one.
func (s *Server) addDebug() {
	prev := s.table.Lookup([]byte("debug"))
	cmd := &commands.Cmd{Name: "debug", Arity: -2, Flags: commands.Admin | commands.NoScript | commands.Loading | commands.Stale | commands.NoTx | commands.Graduates}
	if prev != nil {
		*cmd = *prev
	}
	cmd.Run = func(c *commands.Ctx, args [][]byte) {
		if commands.EqualFold(args[1], "goroutines") && len(args) == 2 {
			c.W.WriteInt(int64(runtime.NumGoroutine()))
			return
		}
		if prev != nil {
			prev.Run(c, args)
			return
		}
		c.Error(commands.Errorf(commands.ErrUnknownSub, string(args[1]), "DEBUG"))
	}
	s.table.Add(cmd)
}
