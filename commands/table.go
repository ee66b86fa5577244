package commands

import (
	"sort"
	"time"
)

// Flags describe a command to the dispatcher and to COMMAND INFO.
type Flags uint32

const (
	Write        Flags = 1 << iota // runs in a write transaction
	ReadOnly                       // runs in a read transaction
	NoScript                       // refused inside EVAL
	Blocking                       // may wait for data
	Admin                          // administrative
	PubSubOK                       // allowed in subscribe mode
	Fast                           // O(1) or O(log n)
	NoTx                           // needs no store transaction (connection level)
	Loading                        // allowed while loading
	Stale                          // allowed on a stale replica
	NoAuth                         // allowed before AUTH
	NoMulti                        // refused inside MULTI
	DenyOOM                        // may grow memory use
	MayReplicate                   // e.g. PUBLISH
	SkipMonitor
	AllowBusy // allowed while a script runs too long
	// MayWrite marks a Write command that may also only read (a script,
	// QLESS): while writes to the data file fail it runs, as Redis runs a
	// script then, and only its first write is refused.
	MayWrite

	// The flags below say how the server serves a command beyond what
	// Redis's flags say; COMMAND INFO does not show them. TestTraits
	// (traits_test.go) checks they agree with each other and with the
	// Redis flags.

	// SubscribedOK: a RESP2 connection in subscribe mode may send it; any
	// other command gets ERR Can't execute there.
	SubscribedOK
	// RunsInMulti: inside MULTI it runs at once instead of being queued.
	RunsInMulti
	// RunsQueued: it runs the commands MULTI queued (EXEC). Refused, it
	// aborts the transaction; while writes fail it is refused when one of
	// them writes; SLOWLOG logs the commands it ran, not it.
	RunsQueued
	// Graduates: it takes its connection out of the event loop (it waits,
	// or changes how the connection is served), so the loop hands the
	// connection to a goroutine of its own before running it.
	Graduates
	// ReadsOutsideTx: it reads the store outside its transaction, so the
	// event loop runs it alone, never in a turn's shared transaction.
	ReadsOutsideTx
	// StandInAnswers: while a script runs past lua-time-limit, the event
	// loop's stand-in answers it (it needs neither the store nor a change
	// of how the connection is served). Other AllowBusy commands wait for
	// the loop.
	StandInAnswers
	// MonitorFirst: MONITOR shows it before the commands it runs, as
	// Redis shows EVAL before its script's calls, and not again after.
	MonitorFirst
	// MisconfRefused: refused with MISCONF while writes to the data file
	// fail, though it writes nothing, as Redis refuses PING so a health
	// check sees the failure; a read-only replica's store does not refuse
	// it.
	MisconfRefused
	// SubscribedPong: in RESP2 subscribe mode, with at most one argument,
	// the server answers it with a message-like array ["pong", arg] (PING).
	SubscribedPong
	// ClosesConn: answered +OK, after which the connection closes (QUIT).
	ClosesConn
	// ListedWithSub: CLIENT LIST's cmd field names its subcommand too
	// (client|list).
	ListedWithSub
	// RunsClientScript: it runs a client's script (EVAL...), which the
	// server announces to the engine before it takes the store lock, and
	// which may run past lua-time-limit. QLESS is not one: it runs our own
	// library, which always ends.
	RunsClientScript
	// NamesScriptBySHA: its first argument is the script's SHA1 (EVALSHA).
	NamesScriptBySHA
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSubOK, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"}, {Loading, "loading"},
	{Stale, "stale"}, {SkipMonitor, "skip_monitor"}, {NoAuth, "no_auth"}, {Fast, "fast"},
	{MayReplicate, "may_replicate"}, {NoMulti, "no_multi"}, {AllowBusy, "allow_busy"},
}

// Names returns the Redis flag names in COMMAND INFO order.
func (f Flags) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// Cmd is one entry of the command table.
type Cmd struct {
	Name     string // lowercase
	Arity    int    // Redis arity: exact when positive, minimum when negative (name included)
	Flags    Flags
	FirstKey int
	LastKey  int
	Step     int
	Run      func(c *Ctx, args [][]byte)
	// Blocks, when set, reports whether a call of a command that is not
	// Blocking as a whole may wait (QLESS bpop), so it is served as
	// blocking commands are.
	Blocks func(args [][]byte) bool
	// ACLSubs names the subcommands ACL rules may name (cmd|sub) beyond
	// Redis's containers, with their categories: QLESS's functions.
	ACLSubs map[string]string
	// ACLSub, when set, names the subcommand a call runs for the ACL when
	// its first argument alone does not (QLESS tag get).
	ACLSub func(args [][]byte) string
	// ServeKey, when set, narrows a multi-key blocking call to the key the
	// server serves it from: Redis 7.0 serves a waiting client from the key
	// that became ready, even when another of its keys got data in the
	// same transaction.
	ServeKey func(args [][]byte, key string) [][]byte
	// BusyOnlyWith, when set, narrows AllowBusy to the calls whose first
	// argument it is (SCRIPT KILL, SHUTDOWN NOSAVE), as Redis does.
	BusyOnlyWith string
	// AdminSubs are the subcommands Redis flags admin, which MONITOR does
	// not show, as it does not show an Admin command (CLIENT LIST).
	AdminSubs []string

	stats *CmdStats            // see stats.go
	subs  map[string]*CmdStats // a container command's subcommands'
}

// Table maps command names to commands.
type Table struct {
	cmds map[string]*Cmd
	// info holds INFO sections added by other packages (AddInfoSection),
	// shown after Redis's own.
	info []infoSection

	stats *Stats
	// Observe, when set, sees each command run: MONITOR, SLOWLOG and
	// LATENCY (the server). Set before serving.
	Observe Observer

	replication func() ReplicationState // see replication.go

	// ACL holds the users (acl.go); set by NewACL once the table is full.
	ACL *ACL
}

// Observer sees the commands run: Before before each call (MONITOR shows
// a script before the commands it runs), Ran after it, with its duration.
type Observer interface {
	Before(c *Ctx, cmd *Cmd, args [][]byte)
	Ran(c *Ctx, cmd *Cmd, args [][]byte, start time.Time, d time.Duration)
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{cmds: map[string]*Cmd{}, stats: newStats()} }

// Add registers commands, replacing any of the same name.
func (t *Table) Add(cmds ...*Cmd) {
	for _, c := range cmds {
		t.addStats(c)
		t.cmds[c.Name] = c
	}
}

// Lookup finds a command by name, in any case.
func (t *Table) Lookup(name []byte) *Cmd {
	if c, ok := t.cmds[string(name)]; ok {
		return c
	}
	// Names are matched ignoring ASCII case, as Redis does, lowered in a
	// stack buffer: clients send QLESS and GET in capitals, and a lowered
	// copy on the heap per command adds up.
	var buf [24]byte
	low := buf[:0]
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	return t.cmds[string(low)]
}

// All returns the commands sorted by name.
func (t *Table) All() []*Cmd {
	out := make([]*Cmd, 0, len(t.cmds))
	for _, c := range t.cmds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ArityOK reports whether n arguments (name included) fit the command.
func (c *Cmd) ArityOK(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

// Keys returns the key arguments of a call, by the table's key positions.
func (c *Cmd) Keys(args [][]byte) [][]byte {
	if c.FirstKey <= 0 {
		return nil
	}
	last := c.LastKey
	if last < 0 {
		last = len(args) + last
	}
	var out [][]byte
	step := c.Step
	if step <= 0 {
		step = 1
	}
	for i := c.FirstKey; i <= last && i < len(args); i += step {
		out = append(out, args[i])
	}
	return out
}

// Default builds the table of every Redis command group. Packages outside
// commands (server, qless) add their own entries to it.
func Default() *Table {
	t := NewTable()
	for _, register := range []func(*Table){
		registerKeys,
		registerStrings,
		registerHashes,
		registerLists,
		registerSets,
		registerZSets,
		registerServer,
		registerMemory,
		registerPubSub,
		registerConnection,
		registerACL,
	} {
		register(t)
	}
	return t
}
