package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// loopBatch is the transaction one turn's commands run in, and the writes
// to settle once it is in the data file.
type loopBatch struct {
	tx    *store.Tx
	reqs  []*writeReq
	spans []replySpan // where the replies are, to redo if the batch fails
}

// replySpan is one command's reply in its connection's output.
type replySpan struct {
	lc         *loopConn
	start, end int
	wrote      bool // the command changed a key
}

// How a command runs in the loop.
type loopRun int

const (
	runBatched   loopRun = iota // in the turn's store transaction
	runAlone                    // by itself, as a connection goroutine would run it
	runElsewhere                // the connection graduates first
)

// alone are the flags of commands that run alone in the loop: outside a
// store transaction, or reading the store outside theirs.
const alone = commands.NoTx | commands.ReadsOutsideTx

func (lp *eventLoop) kind(rc loopCmd, busy bool) loopRun {
	if rc.fail != nil || rc.attack {
		return runAlone // a protocol error's reply, or the close of an attack
	}
	cmd := rc.cmd
	switch {
	case cmd == nil:
		return runAlone
	case cmd.Flags&(commands.Blocking|commands.Graduates) != 0 || (cmd.Blocks != nil && cmd.Blocks(rc.args)):
		return runElsewhere
	case busy || lp.refuse || cmd.Flags&alone != 0 || cmd.Flags&(commands.Write|commands.ReadOnly) == 0:
		return runAlone
	}
	return runBatched
}

// runnable reports whether lc has a command to run now: once the commands
// read have run, one left unread until then is read.
func (lc *loopConn) runnable() bool {
	if len(lc.cmds) == 0 && lc.reparse && !lc.closing && !lc.dead && !lc.graduate && !lc.gone {
		lc.reparse = false
		lc.lp.parse(lc)
	}
	return len(lc.cmds) > 0 && !lc.graduate && !lc.dead
}

// runCommands runs this turn's commands: the leading commands of every
// connection that can share a transaction run in one, then those that
// must run alone, and so on until every connection is done or graduates.
// A connection's commands always run in the order sent.
func (lp *eventLoop) runCommands() {
	lp.refuse = false
	for {
		busy := lp.s.scriptRunning()
		batched := false
		for _, lc := range lp.turn {
			if lc.runnable() && lp.kind(lc.cmds[0], busy) == runBatched {
				batched = true
				break
			}
		}
		if batched {
			lp.runBatch()
		}
		more := false
		for _, lc := range lp.turn {
			for lc.runnable() {
				k := lp.kind(lc.cmds[0], busy)
				if k == runBatched {
					more = true
					break
				}
				if k == runElsewhere {
					lc.graduate = true
					break
				}
				lp.runNext(lc)
			}
		}
		if !more {
			return
		}
	}
}

// runBatch runs every connection's leading batchable commands in one
// transaction, waits until it is in the data file, then settles it.
func (lp *eventLoop) runBatch() {
	s := lp.s
	b := &lp.batch
	ran := false
	release := func() {}
	scripted := lp.batchRunsScript()
	// Announcing scripts waits for commands on their way to the store, and
	// the store may be held by a script that runs elsewhere.
	lp.stepAway(nil)
	if scripted {
		release = s.announceBatch()
	}
	c, err := s.db.UpdateAsync(func(tx *store.Tx) error {
		ran = true
		lp.stepBack()
		b.tx = tx
		for _, lc := range lp.turn {
			for lc.runnable() && lp.kind(lc.cmds[0], false) == runBatched {
				lc.sess.batch = b
				lp.runNext(lc)
				lc.sess.batch = nil
			}
		}
		b.tx = nil
		return nil
	})
	if !ran {
		lp.stepBack()
	}
	release()
	if !ran {
		// Refused before it ran (the data file cannot be written): each
		// command then runs alone and replies with the store's error.
		lp.refuse = true
		return
	}
	if err == nil {
		err = c.Wait()
	}
	gated := false
	if err == nil && !c.Wrote() && b.gated() {
		err, gated = s.gateRead(nil), true
	}
	s.settle(b.reqs, err)
	if err != nil {
		b.replaceReplies(failedReplies(err, gated))
	}
	for i, r := range b.reqs {
		*r = writeReq{wake: r.wake}
		writeReqs.Put(r)
		b.reqs[i] = nil
	}
	clear(b.spans)
	b.reqs, b.spans = b.reqs[:0], b.spans[:0]
}

// batchRunsScript reports whether the turn's batch will run a script that
// may run past lua-time-limit.
func (lp *eventLoop) batchRunsScript() bool {
	for _, lc := range lp.turn {
		if !lc.runnable() {
			continue
		}
		for _, rc := range lc.cmds {
			if lp.kind(rc, false) != runBatched {
				break
			}
			if rc.script {
				return true
			}
		}
	}
	return false
}

// noteReply records where the reply of a command of the batch, written
// to w from start on, is in its connection's output.
func (b *loopBatch) noteReply(sess *session, w replyWriter, start int, wrote bool) {
	if w == replyWriter(&sess.lc.out) {
		b.spans = append(b.spans, replySpan{sess.lc, start, len(sess.lc.out.b), wrote})
	}
}

// gated reports whether a reply of the batch goes to a connection whose
// reads the read gate passes (readgate.go).
func (b *loopBatch) gated() bool {
	for _, sp := range b.spans {
		if !sp.lc.sess.replica {
			return true
		}
	}
	return false
}

// failedReplies is what replaces the replies of a batch that failed with
// err: a write's is err's reply, a command's that wrote nothing its read
// reply; a refusal of the read gate (gated) leaves replicas' replies be.
func failedReplies(err error, gated bool) func(replySpan) []byte {
	write, read := misconfReply(err), misconfReply(asRead(err))
	return func(sp replySpan) []byte {
		switch {
		case gated && sp.lc.sess.replica:
			return nil
		case sp.wrote:
			return write
		}
		return read
	}
}

// replaceReplies puts what with gives in place of each reply of a batch
// whose write to the data file failed (nil: the reply stays): no client
// hears OK for a write that was taken back, nor a read that may have seen
// one.
func (b *loopBatch) replaceReplies(with func(replySpan) []byte) {
	for i := 0; i < len(b.spans); {
		lc := b.spans[i].lc
		var out []byte
		from := 0
		for ; i < len(b.spans) && b.spans[i].lc == lc; i++ {
			msg := with(b.spans[i])
			if msg == nil {
				continue
			}
			out = append(out, lc.out.b[from:b.spans[i].start]...)
			out = append(out, msg...)
			from = b.spans[i].end
		}
		lc.out.b = append(out, lc.out.b[from:]...)
	}
}

// runOne runs lc's next command.
func (lp *eventLoop) runOne(lc *loopConn) {
	rc := lc.cmds[0]
	lc.cmds = lc.cmds[1:]
	if rc.fail != nil {
		lc.out.WriteRaw(rc.fail)
		lc.cmds = nil
		return
	}
	s := lp.s
	if rc.attack {
		s.crossProtocol(lc.sess)
		lc.dead = true // the replies of the turn's commands before it are dropped, as Redis drops them
		lc.cmds = nil
		return
	}
	if !s.life.enter() {
		lc.dead = true
		return
	}
	lc.sess.owned = rc.owned
	quit := s.process(lc.sess, rc.args, &lc.out)
	s.life.leave()
	if quit || lc.sess.closeAfterReply {
		lc.closing = true
		lc.cmds = nil
	}
}

// runBatched is runOnce for a write command in the event loop's
// transaction: the loop waits for the data file once the turn's commands
// have run, and only then sends their replies.
func (s *Server) runBatched(b *loopBatch, sess *session, ctx *commands.Ctx, cmd *commands.Cmd, args [][]byte, w replyWriter) *waiter {
	ctx.W = w
	var wt *waiter
	r := writeReqs.Get().(*writeReq)
	r.fn = s.writeBody(sess, ctx, cmd, args, &wt)
	start := len(sess.lc.out.b)
	s.runWrite(b.tx, r)
	b.reqs = append(b.reqs, r)
	b.noteReply(sess, w, start, r.wrote)
	ctx.Tx, ctx.W = nil, nil
	if p := r.panic; p != nil {
		r.panic = nil
		panic(p) // for process to report, on this connection
	}
	return wt
}

// scriptRunning reports whether a script command runs or waits to run.
func (s *Server) scriptRunning() bool {
	if s.scripts == nil {
		return false
	}
	done, _ := s.scripts.Busy()
	return done != nil
}
