package server

import (
	"strconv"
	"sync"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// Redis keeps at most this many arguments of a slow command, and this
// many bytes of each.
const (
	slowlogMaxArgs = 32
	slowlogMaxArg  = 128
)

type slowEntry struct {
	id         int64
	at         int64 // unix seconds
	usec       int64
	args       [][]byte
	addr, name string
}

// slowLog is SLOWLOG's list, newest first.
type slowLog struct {
	mu      sync.Mutex
	entries []slowEntry
	nextID  int64
	max     func() int64
}

// add records a command that ran for d, as Redis 7.0's slowlog does:
// arguments past the 32nd and bytes past the 128th of each are summed up.
func (l *slowLog) add(c *commands.Ctx, args [][]byte, start time.Time, d time.Duration) {
	args = redacted(args)
	n := min(len(args), slowlogMaxArgs)
	kept := make([][]byte, n)
	for i := range n {
		a := args[i]
		switch {
		case i == slowlogMaxArgs-1 && len(args) > slowlogMaxArgs:
			a = []byte("... (" + strconv.Itoa(len(args)-slowlogMaxArgs+1) + " more arguments)")
		case len(a) > slowlogMaxArg:
			a = append(append([]byte{}, a[:slowlogMaxArg]...), "... ("+strconv.Itoa(len(a)-slowlogMaxArg)+" more bytes)"...)
		default:
			a = append([]byte{}, a...)
		}
		kept[i] = a
	}
	e := slowEntry{at: start.Add(d).Unix(), usec: int64(d / time.Microsecond), args: kept}
	if sess, ok := c.Sess.(*session); ok {
		e.addr, e.name = sess.addr, sess.getName()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.id = l.nextID
	l.nextID++
	l.entries = append([]slowEntry{e}, l.entries...)
	if max := l.max(); int64(len(l.entries)) > max {
		clear(l.entries[max:])
		l.entries = l.entries[:max]
	}
}

// slowlogCmd implements SLOWLOG GET [count], LEN, RESET and HELP.
func (s *Server) slowlogCmd(c *commands.Ctx, args [][]byte) {
	l := &s.obs.slowlog
	sub := string(lowerASCII(args[1]))
	switch {
	case sub == "get" && len(args) <= 3:
		count := int64(10)
		if len(args) == 3 {
			n, ok := commands.ParseInt(args[2])
			if !ok || n < -1 {
				c.Error(commands.ErrSlowlogCount)
				return
			}
			count = n
		}
		l.mu.Lock()
		list := l.entries
		if count >= 0 && int64(len(list)) > count {
			list = list[:count]
		}
		list = append([]slowEntry{}, list...)
		l.mu.Unlock()
		c.W.WriteArray(len(list))
		for _, e := range list {
			c.W.WriteArray(6)
			c.W.WriteInt(e.id)
			c.W.WriteInt(e.at)
			c.W.WriteInt(e.usec)
			c.W.WriteArray(len(e.args))
			for _, a := range e.args {
				c.W.WriteBulk(a)
			}
			c.W.WriteBulkString(e.addr)
			c.W.WriteBulkString(e.name)
		}
	case sub == "get":
		c.Error(commands.Errorf(commands.ErrSubSyntax, string(args[1]), "SLOWLOG"))
	case sub == "len" || sub == "reset" || sub == "help":
		if len(args) != 2 {
			c.Error(commands.WrongArgs("slowlog|" + sub))
			return
		}
		s.slowlogSimple(c, sub)
	default:
		c.Error(commands.Errorf(commands.ErrUnknownSub, string(args[1]), "SLOWLOG"))
	}
}

func (s *Server) slowlogSimple(c *commands.Ctx, sub string) {
	l := &s.obs.slowlog
	l.mu.Lock()
	defer l.mu.Unlock()
	switch sub {
	case "len":
		c.W.WriteInt(int64(len(l.entries)))
	case "reset":
		clear(l.entries)
		l.entries = l.entries[:0]
		c.OK()
	default:
		writeHelp(c.W, []string{
			"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"GET [<count>]",
			"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
			"    Entries are made of:",
			"    id, timestamp, time in microseconds, arguments array, client IP and port,",
			"    client name",
			"LEN",
			"    Return the length of the slowlog.",
			"RESET",
			"    Reset the slowlog.",
			"HELP",
			"    Prints this help.",
		})
	}
}
