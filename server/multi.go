package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// multiState is an open MULTI: the queued commands, and whether one of them
// was refused while queueing (EXEC then aborts).
type multiState struct {
	cmds   []queued
	failed bool
}

type queued struct {
	cmd  *commands.Cmd
	args [][]byte
}

// setMulti opens (m non-nil) or ends the transaction; multiLen mirrors it
// for CLIENT LIST from other goroutines: -1 outside MULTI.
func (s *session) setMulti(m *multiState) {
	s.multi = m
	s.bufs.multi.Store(0)
	if m == nil {
		s.multiLen.Store(-1)
	} else {
		s.multiLen.Store(0)
	}
}

// flagMulti marks an open transaction as failed after a refused command.
func (s *session) flagMulti() {
	if s.multi != nil {
		s.multi.failed = true
	}
}

func (s *session) Multi(c *commands.Ctx) {
	if s.multi != nil {
		c.Error(commands.ErrMultiNested)
		return
	}
	s.setMulti(&multiState{})
	c.OK()
}

func (s *session) Discard(c *commands.Ctx) {
	if s.multi == nil {
		c.Error(commands.ErrDiscardNoMulti)
		return
	}
	s.setMulti(nil)
	s.unwatchAll()
	c.OK()
}

// Watch runs in a read transaction: registering inside it means no write
// can commit between the existence check and the registration.
func (s *session) Watch(c *commands.Ctx, keys [][]byte) {
	if s.multi != nil {
		c.Error(commands.Errorf(commands.ErrNotAllowedMulti, "WATCH"))
		return
	}
	if s.watched == nil {
		s.watched = map[store.KeyRef]bool{}
	}
	var added []store.KeyRef
	for _, k := range keys {
		ref := store.KeyRef{DB: c.Tx.Selected(), Key: string(k)}
		if _, ok := s.watched[ref]; ok {
			continue
		}
		s.watched[ref] = c.Tx.Exists(ref.Key)
		added = append(added, ref)
	}
	s.srv.watches.add(s, added)
	c.OK()
}

func (s *session) Unwatch(c *commands.Ctx) {
	s.unwatchAll()
	c.OK()
}

// unwatchAll forgets every watched key and any change seen to them.
func (s *session) unwatchAll() {
	s.srv.watches.removeAll(s, s.watched)
	s.watched = nil
}

// watchBroken reports, inside EXEC's transaction, whether a watched key
// changed or expired since WATCH.
func (s *session) watchBroken(tx *store.Tx) bool {
	if s.watchDirty.Load() {
		return true
	}
	sel := tx.Selected()
	defer tx.Select(sel)
	for ref, existed := range s.watched {
		if !existed {
			continue
		}
		tx.Select(ref.DB)
		if !tx.Exists(ref.Key) {
			return true
		}
	}
	return false
}

// Exec runs the queued commands in one store transaction: a write
// transaction when any of them writes. Errors of single commands are
// replies in the array; they do not stop the others.
func (s *session) Exec(c *commands.Ctx) {
	m := s.multi
	if m == nil {
		c.Error(commands.ErrExecNoMulti)
		return
	}
	// CLIENT LIST inside EXEC still shows the transaction, as in Redis.
	s.multi = nil
	defer s.multiLen.Store(-1)
	defer s.bufs.multi.Store(0)
	if m.failed {
		s.unwatchAll()
		c.Error(commands.ErrExecAbort)
		return
	}
	srv := s.srv
	write := false
	for _, q := range m.cmds {
		if q.cmd.Flags&commands.Write != 0 {
			write = true
		}
	}
	denied := s.execDenials(m.cmds)
	buf := bufWriter{r3: s.resp3.Load()}
	aborted := false
	body := func(tx *store.Tx) []commands.Message {
		buf.b = buf.b[:0] // a read may run twice (DB.View)
		if s.watchBroken(tx) {
			aborted = true
			return nil
		}
		s.unwatchAll()
		buf.WriteArray(len(m.cmds))
		var msgs []commands.Message
		for i, q := range m.cmds {
			if denied != nil && denied[i] != "" {
				buf.WriteError(denied[i])
				continue
			}
			tx.Select(s.DB())
			ctx := &commands.Ctx{Tx: tx, W: &buf, Sess: s, Env: srv, Table: srv.table, InMulti: true}
			if !pingSubscribed(s, q.cmd, q.args, &buf) {
				srv.table.Dispatch(ctx, q.cmd, q.args)
			}
			msgs = append(msgs, ctx.TakePublished()...)
		}
		return msgs
	}
	var refusal error
	if write && !m.writes() {
		// Only scripts or QLESS: while writes fail they run as reads.
		refusal = srv.db.WritesRefused()
	}
	switch {
	case write && refusal == nil:
		if err := srv.update(body); err != nil {
			c.Error(commands.Misconf(err))
			return
		}
	default:
		var msgs []commands.Message
		err := srv.db.ViewRefusingWrites(refusal, func(tx *store.Tx) error {
			msgs = body(tx)
			return nil
		})
		if err == nil {
			err = srv.gateRead(s)
		}
		if err != nil {
			c.Error(commands.Misconf(err))
			return
		}
		srv.pubsub.publish(msgs)
	}
	if aborted {
		s.unwatchAll()
		c.W.WriteNullArray()
		return
	}
	if rw, ok := c.W.(replyWriter); ok {
		rw.WriteRaw(buf.b)
	}
}
