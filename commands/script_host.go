package commands

import (
	"bytes"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
)

// scriptHost runs redis.call for a script with the caller's context: the
// same store transaction (no nested Update), the same table and session.
type scriptHost struct {
	c        *Ctx
	readOnly bool // EVAL_RO and friends: write commands are refused
	// trusted hosts run QLESS's own library, whose function the ACL
	// checked as a whole: its redis.call are not checked one by one.
	trusted bool
	user    *User // the user of a script whose calls are checked
	sess    scriptSession
	sub     Ctx // the context of the command redis.call runs, reused

	// What Lookup found, which Call reuses: redis.call looks a command
	// up to check its flags and then runs it with the same name.
	lastName []byte
	lastCmd  *Cmd
}

// ScriptHost returns the scripts.Host through which a native library run
// for c (Engine.CallLibrary: QLESS) calls commands: c's transaction, table
// and session. readOnly refuses write commands as EVAL_RO does. The ACL
// checked c's command as a whole, so the library's calls are not checked.
func ScriptHost(c *Ctx, readOnly bool) scripts.Host {
	h := newScriptHost(c, readOnly)
	h.trusted = true
	return h
}

func newScriptHost(c *Ctx, readOnly bool) *scriptHost {
	h := &scriptHost{c: c, readOnly: readOnly}
	if u := SessionUser(c); u != nil && !u.Unrestricted() {
		h.user = u
	}
	h.sess = scriptSession{Session: c.Sess, c: c}
	if c.Tx != nil {
		h.sess.db = c.Tx.Selected()
	} else if c.Sess != nil {
		h.sess.db = c.Sess.DB()
	}
	return h
}

// ReadOnly implements scripts.ReadOnlyHost.
func (h *scriptHost) ReadOnly() bool { return h.readOnly }

// WritesRefused implements scripts.WriteRefusingHost: the MISCONF reply
// while writes to the data file fail.
func (h *scriptHost) WritesRefused() string {
	if h.c.Tx != nil && h.c.Tx.Refusal() != nil {
		return Misconf(h.c.Tx.Refusal())
	}
	if h.readOnly && h.c.Env != nil {
		if err := h.c.Env.Store().WriteRefusal(); err != nil {
			return Misconf(err)
		}
	}
	return ""
}

// Lookup implements scripts.Host.
func (h *scriptHost) Lookup(name []byte) (bool, bool) {
	cmd := h.c.Table.Lookup(name)
	h.lastName, h.lastCmd = name, cmd
	if cmd == nil {
		return false, false
	}
	return true, cmd.Flags&Write != 0
}

// Call implements scripts.Host, refusing what Redis 7.0 refuses inside
// scripts with its texts.
func (h *scriptHost) Call(args [][]byte, w resp.Writer) {
	var cmd *Cmd
	if h.lastCmd != nil && bytes.Equal(args[0], h.lastName) {
		cmd = h.lastCmd
	} else {
		cmd = h.c.Table.Lookup(args[0])
	}
	h.lastName, h.lastCmd = nil, nil
	switch {
	case cmd == nil:
		w.WriteError(ErrScriptUnknownCmd)
		return
	case !cmd.ArityOK(len(args)):
		w.WriteError(ErrScriptWrongArgs)
		return
	case cmd.Flags&NoScript != 0:
		w.WriteError(ErrScriptNotAllowed)
		return
	case cmd.Flags&Write != 0 && !h.readOnly && h.c.Tx != nil && h.c.Tx.Refusal() != nil:
		// Redis refuses a script's write while writes to its AOF fail.
		w.WriteError(Misconf(h.c.Tx.Refusal()))
		return
	case cmd.Flags&Write != 0 && (h.readOnly || h.c.Tx == nil || !h.c.Tx.Writable()):
		w.WriteError(ErrScriptReadOnly)
		return
	case h.user != nil && !h.trusted && h.denied(cmd, args, w):
		return
	}
	// One Ctx per script rather than per call: a Ctx is large, and a
	// script's commands run one after another.
	sub := &h.sub
	*sub = Ctx{Tx: h.c.Tx, W: w, Sess: &h.sess, Env: h.c.Env, Table: h.c.Table, Name: cmd.Name, InScript: true}
	h.c.Table.run(sub, cmd, args)
	if sub.tap.last != "" {
		h.c.tap.passing = sub.tap.last
	}
	h.c.published = append(h.c.published, sub.TakePublished()...)
	*sub = Ctx{}
}

// denied checks a script's call against its user's rules, as Redis does
// for redis.call, and writes the error for a denial.
func (h *scriptHost) denied(cmd *Cmd, args [][]byte, w resp.Writer) bool {
	d, ok := h.c.Table.ACL.Check(h.user, cmd, args)
	if ok {
		return false
	}
	h.c.Table.ACL.logDenial(h.c.Sess, h.user.Name, aclReasonNames[d.Reason], "lua", d.Object)
	w.WriteError(scriptNoPerm(d))
	return true
}

// scriptSession is the caller's session as a script's commands see it:
// SELECT inside a script changes the script's database only, as in Redis 7.0.
type scriptSession struct {
	Session
	c  *Ctx
	db int
}

func (s *scriptSession) DB() int { return s.db }

// ACLUser implements ACLSession for the caller's session.
func (s *scriptSession) ACLUser() *User { return SessionUser(s.c) }

// ClientInfo implements ACLSession for the caller's session.
func (s *scriptSession) ClientInfo() string {
	if a, ok := s.Session.(ACLSession); ok {
		return a.ClientInfo()
	}
	return ""
}

func (s *scriptSession) SetDB(i int) {
	s.db = i
	if s.c.Tx != nil {
		s.c.Tx.Select(i)
	}
}

// WritableHostCtx is the context of the command running a script through
// h, for Go code that stands in for a script's writes; false for read-only
// scripts (EVAL_RO and friends) and hosts of other kinds.
func WritableHostCtx(h scripts.Host) (*Ctx, bool) {
	sh, ok := h.(*scriptHost)
	// A restricted user's script takes the library's path, whose every
	// call the ACL checks.
	if !ok || sh.readOnly || sh.c.Tx == nil || !sh.c.Tx.Writable() || sh.user != nil && !sh.trusted {
		return nil, false
	}
	return sh.c, true
}

// StepAside implements scripts.Asider: a library call run for the caller
// is past lua-time-limit, and the caller's connection is told (the event
// loop serving it then lets others be answered BUSY).
func (h *scriptHost) StepAside() {
	if a, ok := h.c.Sess.(scripts.Asider); ok {
		a.StepAside()
	}
}
