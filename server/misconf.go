package server

import (
	"errors"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// While writes to the data file fail, Redis refuses write commands, EXEC
// of a transaction holding one, and PING, with MISCONF, before they run;
// reads go on, and so do scripts until their first write. So does
// qlessd: a command that may write or only read (EVAL, EVALSHA, QLESS) runs
// as a read whose first write stops it (runRefusingWrites).

// refuseWrite answers cmd with MISCONF when writes are refused and Redis
// would refuse it; it returns the error it replied, "" when it let cmd run.
func (s *Server) refuseWrite(sess *session, cmd *commands.Cmd, w replyWriter) string {
	if !refusedWhenWritesFail(sess, cmd) {
		return ""
	}
	var err error
	if sess.batch != nil {
		// In the event loop's transaction: no probe, which waits for the
		// data file's writer, which may wait for the store.
		err = s.db.WriteRefusal()
	} else {
		err = s.db.WritesRefused()
	}
	if err == nil || (cmd.Flags&commands.MisconfRefused != 0 && errors.As(err, new(store.ReadOnlyError))) {
		return ""
	}
	msg := commands.Misconf(err)
	if cmd.Flags&commands.RunsQueued != 0 {
		sess.setMulti(nil)
		sess.unwatchAll()
		msg = commands.Errorf(commands.ErrExecAbortOf, msg)
		w.WriteError(msg)
		return msg
	}
	w.WriteError(msg)
	sess.flagMulti()
	return msg
}

func refusedWhenWritesFail(sess *session, cmd *commands.Cmd) bool {
	switch {
	case cmd.Flags&commands.Write != 0:
		return cmd.Flags&commands.MayWrite == 0
	case cmd.Flags&commands.MisconfRefused != 0:
		return true
	case cmd.Flags&commands.RunsQueued != 0:
		return sess.multi != nil && sess.multi.writes()
	}
	return false
}

// writes reports whether the transaction holds a write command.
func (m *multiState) writes() bool {
	for _, q := range m.cmds {
		if q.cmd.Flags&commands.Write != 0 && q.cmd.Flags&commands.MayWrite == 0 {
			return true
		}
	}
	return false
}

// runRefusingWrites runs a command that may write while writes are
// refused (refusal says why): as a read, whose reply is kept only when the
// command wrote nothing; its first write stops it, and the reply is
// MISCONF.
func (s *Server) runRefusingWrites(sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w replyWriter, refusal error) {
	buf := sess.replyBuf()
	defer buf.release()
	ctx.W = buf
	err := s.db.ViewRefusingWrites(refusal, func(tx *store.Tx) error {
		buf.b = buf.b[:0]
		ctx.TakePublished()
		tx.Select(sess.DB())
		ctx.Tx = tx
		s.table.Dispatch(ctx, cmd, args)
		return nil
	})
	ctx.Tx, ctx.W, ctx.Block = nil, nil, nil
	var refused *store.RefusedError
	if errors.As(err, &refused) {
		ctx.TakePublished()
		w.WriteError(commands.Misconf(refused.Err))
		return
	}
	if err := s.gateRead(sess); err != nil {
		ctx.TakePublished()
		s.replyFailed(w, err)
		return
	}
	w.WriteRaw(buf.b)
	s.pubsub.publish(ctx.TakePublished())
}

// replyFailed answers a command whose reply a failure replaced.
func (s *Server) replyFailed(w replyWriter, err error) {
	msg := commands.Misconf(err)
	w.WriteError(msg)
	s.table.Stats().CountError(msg)
}

// misconfReply is the reply that replaces those of a batch whose write to
// the data file failed.
func misconfReply(err error) []byte {
	var b bufWriter
	b.WriteError(commands.Misconf(err))
	return b.b
}
