package server

import (
	"strconv"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// observer is the server's commands.Observer: it feeds MONITOR clients,
// and records slow commands (SLOWLOG) and latency events (LATENCY). With no
// monitor and the thresholds unmet it costs a few atomic loads a command.
type observer struct{ s *Server }

func (o observer) Before(c *commands.Ctx, cmd *commands.Cmd, args [][]byte) {
	if !o.s.obs.monitored() || cmd.Flags&commands.MonitorFirst == 0 {
		return
	}
	o.s.feedMonitors(c, args)
}

func (o observer) Ran(c *commands.Ctx, cmd *commands.Cmd, args [][]byte, start time.Time, d time.Duration) {
	s := o.s
	if s.obs.monitored() && cmd.Flags&commands.MonitorFirst == 0 && !hiddenFromMonitors(cmd, args) {
		s.feedMonitors(c, args)
	}
	if c.InScript {
		return // Redis logs and samples the script, not its calls
	}
	if s.obs.slow(d) && cmd.Flags&commands.RunsQueued == 0 {
		s.obs.slowlog.add(c, args, start, d)
	}
	event := "command"
	if cmd.Flags&commands.Fast != 0 {
		event = "fast-command"
	}
	s.obs.noteLatency(event, start, d)
}

// hiddenFromMonitors reports whether MONITOR leaves a call out: Redis 7.0
// does not show commands and subcommands flagged admin.
func hiddenFromMonitors(cmd *commands.Cmd, args [][]byte) bool {
	if cmd.Flags&commands.Admin != 0 {
		return true
	}
	if len(args) > 1 {
		for _, sub := range cmd.AdminSubs {
			if commands.EqualFold(args[1], sub) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// feedMonitors sends one command to every monitor, as Redis's MONITOR
// prints it. Each monitor's outbox takes the line; its own goroutine
// writes it, so the command never waits for a monitor's socket.
func (s *Server) feedMonitors(c *commands.Ctx, args [][]byte) {
	now := time.Now()
	line := make([]byte, 0, 64)
	line = append(line, '+')
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	us := strconv.Itoa(now.Nanosecond() / 1000)
	line = append(line, "000000"[len(us):]...)
	line = append(line, us...)
	line = append(line, " ["...)
	db := 0
	if c.Sess != nil {
		db = c.Sess.DB()
	}
	line = strconv.AppendInt(line, int64(db), 10)
	line = append(line, ' ')
	sess, _ := c.Sess.(*session)
	switch {
	case c.InScript || sess == nil:
		line = append(line, "lua"...)
	default:
		line = append(line, sess.addr...)
	}
	line = append(line, "] "...)
	for i, a := range redacted(args) {
		if i > 0 {
			line = append(line, ' ')
		}
		line = appendRepr(line, a)
	}
	line = append(line, "\r\n"...)
	s.obs.feed(line)
}

var redactedArg = []byte("(redacted)")

// redacted hides passwords as Redis 7.0 does in MONITOR and SLOWLOG:
// AUTH's arguments, HELLO's after AUTH.
func redacted(args [][]byte) [][]byte {
	name := args[0]
	switch {
	case commands.EqualFold(name, "auth"):
		out := make([][]byte, len(args))
		out[0] = name
		for i := 1; i < len(args); i++ {
			out[i] = redactedArg
		}
		return out
	case commands.EqualFold(name, "hello"):
		for i := 2; i+2 < len(args); i++ {
			if commands.EqualFold(args[i], "auth") {
				out := append([][]byte{}, args...)
				out[i+1], out[i+2] = redactedArg, redactedArg
				return out
			}
		}
	}
	return args
}

// appendRepr quotes b as Redis's sdscatrepr does.
func appendRepr(out, b []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for _, c := range b {
		switch c {
		case '\\', '"':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\a':
			out = append(out, '\\', 'a')
		case '\b':
			out = append(out, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				out = append(out, c)
			} else {
				out = append(out, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(out, '"')
}

// Monitor implements MONITOR: from its +OK on, the connection receives
// every command run, through an outbox as a subscriber receives messages.
func (s *Server) monitorCmd(c *commands.Ctx, args [][]byte) {
	sess, ok := c.Sess.(*session)
	if !ok || c.InMulti {
		c.Error(commands.ErrMonitorDenyBlocking)
		return
	}
	s.pubsub.mu.Lock()
	defer s.pubsub.mu.Unlock()
	if sess.monitoring.Load() {
		return
	}
	if sess.out == nil {
		sess.out = newOutbox(s.pubsubLimit(), sess.overflowed)
	}
	c.OK()
	sess.monitoring.Store(true)
	s.obs.addMonitor(sess)
}

// stopMonitoring removes sess from the monitors (RESET, disconnect).
func (s *Server) stopMonitoring(sess *session) {
	if !sess.monitoring.Swap(false) {
		return
	}
	s.obs.removeMonitor(sess)
}

// addObservers installs MONITOR, SLOWLOG and LATENCY and the observer
// behind them.
func (s *Server) addObservers() {
	s.table.Observe = observer{s}
	s.db.OnLatency(s.storeLatency)
	const flags = commands.Admin | commands.NoScript | commands.Loading | commands.Stale | commands.NoTx
	s.table.Add(
		&commands.Cmd{Name: "monitor", Arity: 1, Flags: flags | commands.Graduates, Run: s.monitorCmd},
		&commands.Cmd{Name: "slowlog", Arity: -2, Flags: flags, Run: s.slowlogCmd},
		&commands.Cmd{Name: "latency", Arity: -2, Flags: flags, Run: s.latencyCmd},
	)
}

// CommandStats returns each command's counters since start or CONFIG
// RESETSTAT (as INFO commandstats), with its durations as a Prometheus
// histogram: Duration.Buckets[i] counts the calls of at most
// commands.DurationBounds[i] seconds, cumulatively.
func (s *Server) CommandStats() []commands.CommandStat { return s.table.Stats().Commands() }
