package server

import (
	"fmt"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// internalSession is the caller of commands the server runs on its own
// (RunInternal): no connection, in one database.
type internalSession struct{ db int }

func (internalSession) ID() int64 { return 0 }
func (s internalSession) DB() int { return s.db }
func (internalSession) SetDB(int) {}

// RunInternal runs a write command on the server's own behalf, as a client
// would send it (its writes reach the data file, its messages subscribers,
// and blocked clients are served), and returns its reply. It is for
// background work: a worker's jobs handed back when its connection is gone.
func (s *Server) RunInternal(db int, args ...[]byte) ([]byte, error) {
	cmd := s.table.Lookup(args[0])
	if cmd == nil || cmd.Flags&commands.Write == 0 {
		return nil, fmt.Errorf("RunInternal: %q is not a write command", args[0])
	}
	var buf bufWriter
	err := s.update(func(tx *store.Tx) []commands.Message {
		tx.Select(db)
		ctx := &commands.Ctx{Tx: tx, W: &buf, Sess: internalSession{db}, Env: s, Table: s.table}
		s.table.Dispatch(ctx, cmd, args)
		return ctx.TakePublished()
	})
	return buf.b, err
}
