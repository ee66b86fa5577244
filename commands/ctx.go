package commands

import (
	"strings"
	"time"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// Message is a pub/sub message published by a command.
type Message struct {
	Channel, Payload string
	Shard            bool // SPUBLISH: for SSUBSCRIBE subscribers only
}

// BlockRequest is how a blocking command asks to wait: the server waits
// until one of Keys changes or Timeout passes (0 waits forever), then runs
// the command again.
type BlockRequest struct {
	DB      int
	Keys    []string
	Timeout time.Duration
	// Recheck, when positive, runs the command again after this long
	// without ending the wait: something it waits for falls due by the
	// clock (a scheduled job, an expiring lock), not by a write.
	Recheck time.Duration
	// AnyChange are keys (of Keys) whose every write is offered to the
	// command, even one that leaves the key missing; the others only
	// while they exist, as a list pop waits for a list that exists (a
	// queue pop also waits for an unpause, which may empty the paused set).
	AnyChange []string
}

// Ctx carries one command execution.
type Ctx struct {
	Tx       *store.Tx
	W        resp.Writer
	Sess     Session
	Env      Env
	Table    *Table
	Name     string // the command name as called, lowercased
	InScript bool   // called through redis.call
	InMulti  bool   // queued by MULTI and run by EXEC

	// Block is set by a blocking command that found no data and may wait.
	Block *BlockRequest
	// TimedOut is set when a blocked command is run for the last time after
	// its timeout: it must write its timeout reply.
	TimedOut bool
	// Retrying is set on every run after the first of a blocking command: a
	// key that now holds another type is passed over, as Redis keeps a
	// client blocked until a key of the type it waits for is ready.
	Retrying bool
	// Waited is how long a blocked command has waited when run again.
	Waited time.Duration
	// Undelivered, when a command sets it, hands back what its reply hands
	// over (QLESS bpop's popped jobs) should that reply never leave for
	// the client: its connection was found closed, or writing failed. The
	// server runs it once the command's transaction has committed, outside
	// any transaction, and only for a reply it sends to a connection.
	Undelivered func()
	// Owned are the rooms of the command's long arguments (store.Room):
	// set only on a command's first run straight from its connection,
	// whose buffers nothing else writes to again (TakeRoom).
	Owned []store.Room

	published []Message
	tap       errTap        // see Dispatch
	started   time.Duration // see Started
}

// Started is when the command began to run, by the clock that times it for
// INFO commandstats (so it costs no reading of its own); the zero time when
// it was not run by Dispatch.
func (c *Ctx) Started() time.Time {
	if c.started == 0 {
		return time.Time{}
	}
	return clockBase.Add(c.started)
}

// CanBlock reports whether a blocking command may wait instead of replying
// at once: never inside scripts or MULTI, and not after its timeout.
func (c *Ctx) CanBlock() bool { return !c.InScript && !c.InMulti && !c.TimedOut }

// Publish queues a message for delivery once the transaction commits and
// returns the number of receivers, as PUBLISH does.
func (c *Ctx) Publish(channel, payload string) int64 {
	c.published = append(c.published, Message{Channel: channel, Payload: payload})
	if c.Env == nil {
		return 0
	}
	return c.Env.CountSubscribers(channel)
}

// TakePublished returns and clears the queued messages.
func (c *Ctx) TakePublished() []Message {
	m := c.published
	c.published = nil
	return m
}

// Error writes an error reply.
func (c *Ctx) Error(msg string) { c.W.WriteError(msg) }

// OK writes +OK.
func (c *Ctx) OK() { c.W.WriteStatus("OK") }

// Dispatch runs cmd after checking its arity. The caller has looked the
// command up and opened a suitable transaction.
func (t *Table) Dispatch(c *Ctx, cmd *Cmd, args [][]byte) {
	if !cmd.ArityOK(len(args)) {
		msg := WrongArgs(cmd.Name)
		c.W.WriteError(msg)
		t.Rejected(cmd, args, msg)
		return
	}
	c.Name = cmd.Name
	t.run(c, cmd, args)
}

// run runs cmd and counts the call: its time and whether it replied an
// error (INFO commandstats, errorstats), the keys it looked up if it reads
// (keyspace_hits, _misses), and tells the observer. A call that goes to
// wait (a blocking command) is counted when it is run again.
func (t *Table) run(c *Ctx, cmd *Cmd, args [][]byte) {
	inner := c.W
	c.tap = errTap{w: inner, stats: t.stats}
	c.W = &c.tap
	reads := c.Tx != nil && cmd.Flags&ReadOnly != 0
	if reads {
		c.Tx.RecordLookups()
	}
	if t.Observe != nil {
		t.Observe.Before(c, cmd, args)
	}
	start := sinceBase()
	c.started = start
	cmd.Run(c, args)
	d := sinceBase() - start
	if reads {
		if c.Tx.Lookups() > 0 {
			t.stats.CountLookups(countKeys(c.Tx, cmd, args))
		}
		c.Tx.StopLookups()
	}
	c.W = inner
	if c.Block != nil {
		return
	}
	if cs := t.statsFor(cmd, args); cs != nil {
		cs.record(d, c.tap.errs > 0)
	}
	if t.Observe != nil {
		t.Observe.Ran(c, cmd, args, clockBase.Add(start), d)
	}
}

// errTap passes a command's reply on and counts its error replies.
type errTap struct {
	w     resp.Writer
	stats *Stats
	errs  int
	last  string // the last error counted
	// passing is the error a script's redis.call got, counted then, which
	// the script may pass on as its own: Redis counts it once.
	passing string
}

func (t *errTap) WriteError(msg string) {
	t.errs++
	if t.passing != "" && strings.HasPrefix(msg, t.passing) {
		t.passing = ""
	} else {
		t.stats.CountError(msg)
		t.last = msg
	}
	t.w.WriteError(msg)
}
func (t *errTap) WriteStatus(s string)     { t.w.WriteStatus(s) }
func (t *errTap) WriteBulk(b []byte)       { t.w.WriteBulk(b) }
func (t *errTap) WriteBulkString(s string) { t.w.WriteBulkString(s) }
func (t *errTap) WriteInt(n int64)         { t.w.WriteInt(n) }
func (t *errTap) WriteNull()               { t.w.WriteNull() }
func (t *errTap) WriteNullArray()          { t.w.WriteNullArray() }
func (t *errTap) WriteArray(n int)         { t.w.WriteArray(n) }
func (t *errTap) WriteMap(n int)           { t.w.WriteMap(n) }
func (t *errTap) WriteSet(n int)           { t.w.WriteSet(n) }
func (t *errTap) WriteDouble(f float64)    { t.w.WriteDouble(f) }
func (t *errTap) WriteBool(b bool)         { t.w.WriteBool(b) }
func (t *errTap) WriteVerbatim(s string)   { t.w.WriteVerbatim(s) }
func (t *errTap) WritePairs(n int)         { t.w.WritePairs(n) }
func (t *errTap) WritePair()               { t.w.WritePair() }
func (t *errTap) WritePush(n int)          { t.w.WritePush(n) }
func (t *errTap) WriteBigNumber(s string)  { t.w.WriteBigNumber(s) }
func (t *errTap) WriteVerbatimExt(ext, s string) {
	t.w.WriteVerbatimExt(ext, s)
}
func (t *errTap) SetResp3(on bool) { resp.SetResp3(t.w, on) }

// WriteRaw passes already encoded replies (EXEC's) on to writers that
// take them.
func (t *errTap) WriteRaw(b []byte) {
	if rw, ok := t.w.(interface{ WriteRaw([]byte) }); ok {
		rw.WriteRaw(b)
	}
}

// IntReply writes n, or the reply for err when the store refused.
func (c *Ctx) IntReply(n int64, err error) {
	if err != nil {
		c.StoreErr(err)
		return
	}
	c.W.WriteInt(n)
}

// BoolReply writes 1 or 0, or the reply for err when the store refused.
func (c *Ctx) BoolReply(ok bool, err error) {
	if err != nil {
		c.StoreErr(err)
		return
	}
	if ok {
		c.W.WriteInt(1)
	} else {
		c.W.WriteInt(0)
	}
}

// StoreErr writes the reply for a store error (a wrong type, most often).
func (c *Ctx) StoreErr(err error) {
	if err == store.ErrWrongType {
		c.W.WriteError(ErrWrongType)
		return
	}
	c.W.WriteError("ERR " + err.Error())
}
