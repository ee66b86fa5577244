package server

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// serveBlocked runs inside a write transaction after its commands: each
// touched key with waiters is offered to them, in the order the keys were
// touched, as Redis's handleClientsBlockedOnKeys does before any other
// command runs. What a served command writes (a BLMOVE destination) is
// touched in turn and may serve others. The replies are handed over by the
// caller once the transaction has committed; they are appended to *out as
// they happen, so that none is lost should a later step panic.
func (s *Server) serveBlocked(tx *store.Tx, from int, out *[]handoff) (msgs []commands.Message) {
	if s.waiters.blocked() == 0 {
		return nil
	}
	sel := tx.Selected()
	defer tx.Select(sel)
	// A key is offered again only if something was served since it was
	// last offered: otherwise nothing changed for its waiters.
	offered := map[store.KeyRef]int{}
	for i := from; i < len(tx.Touched()); i++ {
		k := tx.Touched()[i]
		if !s.waiters.hasWaiters(k) {
			continue
		}
		if n, ok := offered[k]; ok && n == len(*out) {
			continue
		}
		offered[k] = len(*out)
		ready := func() bool {
			tx.Select(k.DB)
			return tx.Exists(k.Key)
		}
		run := func(w *waiter) ([]byte, bool) {
			if connClosed(w.sess.netConn) {
				return nil, false // a departed client takes nothing
			}
			reply, published, ok := s.runWaiter(tx, w, k)
			if ok {
				msgs = append(msgs, published...)
			}
			return reply, ok
		}
		s.waiters.serveKey(k, ready, run, out)
	}
	return msgs
}

// runWaiter re-runs w's command for ready key k in tx. It reports false
// when the command asks to wait again (k holds another type, or is empty).
func (s *Server) runWaiter(tx *store.Tx, w *waiter, k store.KeyRef) (reply []byte, published []commands.Message, ok bool) {
	buf := bufWriter{r3: w.sess.resp3.Load()}
	ctx := &commands.Ctx{Tx: tx, W: &buf, Sess: w.sess, Env: s, Table: s.table, Retrying: true, Waited: time.Since(w.since)}
	defer func() {
		// The pushing client must not pay for a bug in the waiter's
		// command: the waiter gets the error and stops waiting.
		if r := recover(); r != nil {
			s.cfg.Logger.Error("blocked command panicked while being served",
				"command", string(w.args[0]), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			buf.WriteError(fmt.Sprintf("ERR internal error running '%s': %v", w.cmd.Name, r))
			reply, published, ok = buf.b, nil, true
		}
	}()
	tx.Select(w.db)
	args := w.args
	if w.cmd.ServeKey != nil {
		args = w.cmd.ServeKey(args, k.Key)
	}
	s.table.Dispatch(ctx, w.cmd, args)
	if ctx.Block != nil {
		w.setRecheck(ctx.Block.Recheck)
		return nil, nil, false
	}
	w.undelivered = ctx.Undelivered
	return buf.b, ctx.TakePublished(), true
}

// flushReplies sends the replies to the commands pipelined before a
// blocking one. A detached connection's replies are out already.
func (sess *session) flushReplies() {
	if sess.own != nil && !sess.detached {
		sess.own.flush()
	}
}
