package commands_test

import (
	"io"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/store"
)

// The command-group tests run each command in-process: a built but never
// started server over an in-memory store supplies what commands take from
// the server (INFO, CONFIG, SELECT's database count), the command table is
// the one qlessd serves (Default plus scripting), and a resp.Recorder takes
// the reply. Nothing listens, so a group's table runs in milliseconds.

// harness is one in-process qlessd and one client session on it.
type harness struct {
	t     testing.TB
	srv   *server.Server
	table *commands.Table
	sess  *session
}

// session is the harness's client: commands see its selected database.
// It is no connection (commands.Conn), so connection-level commands such
// as MULTI or SUBSCRIBE refuse here past their arity check; tests/ runs
// them over TCP.
type session struct{ db int }

func (s *session) ID() int64   { return 1 }
func (s *session) DB() int     { return s.db }
func (s *session) SetDB(i int) { s.db = i }

func newHarness(t testing.TB) *harness {
	t.Helper()
	table := commands.Default()
	commands.RegisterScripting(table, scripts.NewEngine(scripts.Options{}))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(server.Config{Dir: ":memory:", Logger: quiet, Version: "test"}, table, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Store().Close() })
	return &harness{t: t, srv: srv, table: table, sess: &session{}}
}

// Line runs one command line, split as redis-cli splits what it is typed
// (quotes, escapes), and returns its reply.
func (h *harness) Line(line string) resp.Value {
	h.t.Helper()
	args, ok := resp.SplitArgs([]byte(line), nil)
	if !ok || len(args) == 0 {
		h.t.Fatalf("bad command line %q", line)
	}
	v, _ := h.Run(args, nil)
	return v
}

// Do runs one command given as its arguments.
func (h *harness) Do(args ...string) resp.Value {
	h.t.Helper()
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	v, _ := h.Run(bs, nil)
	return v
}

// Run runs args in the transaction the server would open for the command
// (none, a read or a write) in the session's database; setup, when set,
// adjusts the context first (InMulti, TimedOut). It returns the reply and
// the context, whose Block tells whether the command asked to wait; a
// command that wrote no reply (it waits) comes back as Kind 255.
func (h *harness) Run(args [][]byte, setup func(c *commands.Ctx)) (resp.Value, *commands.Ctx) {
	h.t.Helper()
	cmd := h.table.Lookup(args[0])
	var rec resp.Recorder
	c := &commands.Ctx{W: &rec, Sess: h.sess, Env: h.srv, Table: h.table}
	if setup != nil {
		setup(c)
	}
	switch {
	case cmd == nil:
		rec.WriteError(commands.UnknownCommand(string(args[0]), args[1:]))
	case cmd.Flags&commands.NoTx != 0:
		h.table.Dispatch(c, cmd, args)
	case cmd.Flags&commands.Write != 0:
		h.srv.Store().Update(func(tx *store.Tx) error { return h.dispatch(tx, c, cmd, args) })
	default:
		h.srv.Store().View(func(tx *store.Tx) error { return h.dispatch(tx, c, cmd, args) })
	}
	if !rec.Written() {
		return resp.Value{Kind: 255}, c
	}
	return rec.Value().Resp2(), c // the rows give Redis 7.0's RESP2 replies
}

func (h *harness) dispatch(tx *store.Tx, c *commands.Ctx, cmd *commands.Cmd, args [][]byte) error {
	tx.Select(h.sess.DB())
	c.Tx = tx
	h.table.Dispatch(c, cmd, args)
	c.Tx = nil
	return nil
}

// Compact writes a reply in a short form that keeps every RESP2
// distinction: +status, -error, :integer, "bulk" (Go-quoted), $-1 (null
// bulk), *-1 (null array) and [elements separated by blanks].
func Compact(v resp.Value) string {
	var b strings.Builder
	compactTo(&b, v)
	return b.String()
}

func compactTo(b *strings.Builder, v resp.Value) {
	switch v.Kind {
	case resp.Status:
		b.WriteString("+" + v.Str)
	case resp.Error:
		b.WriteString("-" + v.Str)
	case resp.Int:
		b.WriteString(":" + strconv.FormatInt(v.Int, 10))
	case resp.Bulk:
		b.WriteString(strconv.Quote(v.Str))
	case resp.Null:
		b.WriteString("$-1")
	case resp.NullArray:
		b.WriteString("*-1")
	case resp.Array:
		b.WriteByte('[')
		for i, e := range v.Array {
			if i > 0 {
				b.WriteByte(' ')
			}
			compactTo(b, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString("(no reply)")
	}
}

// row is one command line and Redis 7.0's reply to it in Compact form. A
// want starting with ~ is a regular expression the whole compact reply
// must match: for replies that hold the time or a random pick. One
// starting with % is an array whose order Redis leaves to its hash tables
// (KEYS, SMEMBERS): the elements are compared sorted (see Sorted).
type row struct{ line, want string }

// groups holds every group's rows by group name, filled as the group
// files' variables are initialised, so the coverage test sees them all
// whichever tests run.
var (
	groupsMu sync.Mutex
	groups   = map[string][]row{}
)

// group records rows under name and returns them.
func group(name string, rows []row) []row {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	groups[name] = append(groups[name], rows...)
	return rows
}

// runRows runs rows in order on one fresh server, as a redis-cli session
// would, and checks each reply. With QLESSD_CAPTURE_REDIS=host:port it
// instead sends the same lines to that (flushed!) Redis and prints the
// rows with Redis's replies, marking those where qlessd differs: that is
// how the expectations here were taken from Redis 7.0.
func runRows(t *testing.T, rows []row) {
	t.Helper()
	h := newHarness(t)
	if addr := os.Getenv("QLESSD_CAPTURE_REDIS"); addr != "" {
		capture(t, h, addr, rows)
		return
	}
	for i, r := range rows {
		got := form(r.want, h.Line(r.line))
		if !replyMatches(r.want, got) {
			t.Errorf("row %d: %s\n got: %s\nwant: %s", i, r.line, got, r.want)
		}
	}
}

// form writes v as want is written: sorted after a %, else Compact.
func form(want string, v resp.Value) string {
	if strings.HasPrefix(want, "%") {
		return "%" + Sorted(v)
	}
	return Compact(v)
}

// Sorted is Compact with every array's elements in sorted order (SCAN's
// keys are an array inside its reply).
func Sorted(v resp.Value) string {
	if v.Kind != resp.Array {
		return Compact(v)
	}
	elems := make([]string, len(v.Array))
	for i, e := range v.Array {
		elems[i] = Sorted(e)
	}
	sort.Strings(elems)
	return "[" + strings.Join(elems, " ") + "]"
}

func replyMatches(want, got string) bool {
	if strings.HasPrefix(want, "~") {
		return regexp.MustCompile("^(?:" + want[1:] + ")$").MatchString(got)
	}
	return want == got
}

// commandNames returns the command names the rows of every group run.
func commandNames() map[string]bool {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	names := map[string]bool{}
	for _, rows := range groups {
		for _, r := range rows {
			if args, ok := resp.SplitArgs([]byte(r.line), nil); ok && len(args) > 0 {
				names[strings.ToLower(string(args[0]))] = true
			}
		}
	}
	return names
}

// needConnection are the commands no row can run here: every call of
// theirs, even a wrong one, is answered by the connection (EXEC's arity
// error too, which Redis turns into EXECABORT), and the harness has none.
// tests/ runs them over TCP against qlessd and Redis.
var needConnection = map[string]bool{
	"exec": true, "hello": true, "unsubscribe": true, "punsubscribe": true, "sunsubscribe": true,
}

// Every command qlessd serves has rows in some group's table, so a new
// command comes with its tests.
func TestEveryCommandHasRows(t *testing.T) {
	h := newHarness(t)
	used := commandNames()
	var missing []string
	for _, cmd := range h.table.All() {
		if !used[cmd.Name] && !needConnection[cmd.Name] {
			missing = append(missing, cmd.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d commands have no rows in any commands/<group>_test.go table: %s",
			len(missing), strings.Join(missing, " "))
	}
	t.Logf("%d commands, %d with rows, in %d groups", len(h.table.All()), len(used), len(groups))
}
