package server

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// loopCmd is one command the loop read: its arguments point into the
// connection's input buffer, which stays put until the turn ends.
type loopCmd struct {
	args  [][]byte
	cmd   *commands.Cmd // the table's entry for args[0], nil when unknown
	start int           // where the command begins in the input
	fail  []byte        // a protocol error's reply, in place of a command
	err   error         // that error
	// attack: a cross-protocol request (POST or Host:), in place of a
	// command; the connection closes there, nothing of its turn sent
	attack bool
	// script: a script that may run past lua-time-limit (any but a
	// library's), which the loop runs with a stand-in ready (loop_busy.go)
	script bool
	// owned: the rooms of its long arguments (store.Room), for process
	owned []store.Room
}

// parse takes the commands out of what was read. A command cut short by
// the end of the input is read on from where it stopped next time. A
// client whose input not run yet passes client-query-buffer-limit is
// closed first, as Redis checks after each read.
func (lp *eventLoop) parse(lc *loopConn) {
	s := lp.s
	if s.overQueryLimit(lc.sess, lc.in[lc.parsed:], lc.req.held()) {
		lc.dead = true
		return
	}
	for lc.parsed < len(lc.in) {
		start, before := lc.parsed, len(lc.argBuf)
		n, args, err := lc.req.next(lc.in[start:], s.reqLimits(lc.sess), lc.argBuf)
		switch {
		case err == errIncomplete:
			return
		case (err == errUnauthArgs || err == errUnauthBulk) && len(lc.cmds) > 0:
			// The commands before it, not run yet, may authenticate the
			// client: Redis reads a command after running the last one.
			lc.reparse = true
			return
		case err == errCrossProtocol:
			lc.cmds = append(lc.cmds, loopCmd{start: start, attack: true})
			lc.parsed = len(lc.in)
			lc.closing = true
			return
		case err != nil:
			lc.cmds = append(lc.cmds, loopCmd{start: start, fail: []byte("-ERR " + err.Error() + "\r\n"), err: err})
			lc.parsed = len(lc.in)
			lc.closing = true
			return
		}
		lc.argBuf = args
		lc.parsed += n
		if len(args) > before {
			rc := loopCmd{args: args[before:len(args):len(args)], cmd: s.table.Lookup(args[before]), start: start}
			rc.script = rc.cmd != nil && s.runsLong(rc.cmd, rc.args)
			rc.owned = lc.req.takeOwned()
			lc.bigIn += bigBytes(rc.args)
			lc.cmds = append(lc.cmds, rc)
		}
	}
}
