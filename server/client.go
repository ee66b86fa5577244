package server

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// clientSub is one CLIENT subcommand: Redis arity (counting "client" and
// the subcommand) and its implementation.
type clientSub struct {
	arity int
	run   func(s *session, c *commands.Ctx, args [][]byte)
}

var clientSubs map[string]clientSub

func init() {
	clientSubs = map[string]clientSub{
		"id":       {2, func(s *session, c *commands.Ctx, _ [][]byte) { c.W.WriteInt(s.id) }},
		"getname":  {2, clientGetName},
		"setname":  {3, clientSetName},
		"info":     {2, func(s *session, c *commands.Ctx, args [][]byte) { c.W.WriteVerbatim(s.srv.clientLine(s, args)) }},
		"list":     {-2, clientList},
		"kill":     {-3, clientKill},
		"reply":    {3, clientReply},
		"setinfo":  {4, clientSetInfo},
		"no-evict": {3, func(s *session, c *commands.Ctx, args [][]byte) { onOff(c, args[2]) }},
		"no-touch": {3, func(s *session, c *commands.Ctx, args [][]byte) { onOff(c, args[2]) }},
		"help":     {2, func(s *session, c *commands.Ctx, _ [][]byte) { writeHelp(c.W, clientHelp) }},
	}
}

// Client implements CLIENT and its subcommands.
func (s *session) Client(c *commands.Ctx, args [][]byte) {
	name := strings.ToLower(string(args[1]))
	sub, ok := clientSubs[name]
	if !ok {
		c.Error(commands.Errorf(commands.ErrUnknownSub, string(args[1]), "CLIENT"))
		return
	}
	if (sub.arity > 0 && len(args) != sub.arity) || (sub.arity < 0 && len(args) < -sub.arity) {
		c.Error(commands.WrongArgs("client|" + name))
		return
	}
	sub.run(s, c, args)
}

func onOff(c *commands.Ctx, v []byte) {
	if commands.EqualFold(v, "on") || commands.EqualFold(v, "off") {
		c.OK()
		return
	}
	c.Error(commands.ErrSyntax)
}

func clientGetName(s *session, c *commands.Ctx, _ [][]byte) {
	if n := s.getName(); n != "" {
		c.W.WriteBulkString(n)
		return
	}
	c.W.WriteNull()
}

func clientSetName(s *session, c *commands.Ctx, args [][]byte) {
	if !validClientName(args[2]) {
		c.Error(commands.ErrClientName)
		return
	}
	s.setName(string(args[2]))
	c.OK()
}

// clientSetInfo accepts the library name and version that newer clients
// send on connect (Redis 7.2's CLIENT SETINFO).
func clientSetInfo(s *session, c *commands.Ctx, args [][]byte) {
	if !commands.EqualFold(args[2], "lib-name") && !commands.EqualFold(args[2], "lib-ver") {
		c.Error(commands.Errorf("ERR Unrecognized option '%s'", string(args[2])))
		return
	}
	if !validClientName(args[3]) {
		c.Error(commands.Errorf("ERR %s cannot contain spaces, newlines or special characters.", string(args[2])))
		return
	}
	c.OK()
}

func clientReply(s *session, c *commands.Ctx, args [][]byte) {
	switch {
	case commands.EqualFold(args[2], "on"):
		s.replyOff, s.replySkip = false, false
		c.OK()
	case commands.EqualFold(args[2], "off"):
		s.replyOff = true
	case commands.EqualFold(args[2], "skip"):
		if !s.replyOff {
			s.replySkip = true
		}
	default:
		c.Error(commands.ErrSyntax)
	}
}

// isClientReply reports whether a command line is CLIENT REPLY, which
// answers even while replies are off.
func isClientReply(args [][]byte) bool {
	return len(args) == 3 && commands.EqualFold(args[0], "client") && commands.EqualFold(args[1], "reply")
}

// clientType is Redis's client class for LIST and KILL TYPE filters.
func clientType(name []byte) (string, bool) {
	switch strings.ToLower(string(name)) {
	case "normal":
		return "normal", true
	case "pubsub":
		return "pubsub", true
	case "master":
		return "master", true
	case "slave", "replica":
		return "replica", true
	}
	return "", false
}

func (s *Server) typeOf(sess *session) string {
	s.pubsub.mu.RLock()
	defer s.pubsub.mu.RUnlock()
	if sess.subsLocked() > 0 {
		return "pubsub"
	}
	return "normal"
}

// allSessions returns the connected clients by id.
func (s *Server) allSessions() []*session {
	s.mu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		list = append(list, sess)
	}
	s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	return list
}

func clientList(s *session, c *commands.Ctx, args [][]byte) {
	srv := s.srv
	var list []*session
	switch {
	case len(args) == 4 && commands.EqualFold(args[2], "type"):
		typ, ok := clientType(args[3])
		if !ok {
			c.Error(commands.Errorf(commands.ErrClientType, string(args[3])))
			return
		}
		for _, sess := range srv.allSessions() {
			if srv.typeOf(sess) == typ {
				list = append(list, sess)
			}
		}
	case len(args) > 3 && commands.EqualFold(args[2], "id"):
		var ids []int64
		for _, a := range args[3:] {
			id, ok := commands.ParseInt(a)
			if !ok {
				c.Error(commands.ErrInvalidClientID)
				return
			}
			ids = append(ids, id)
		}
		srv.mu.Lock()
		for _, id := range ids {
			if sess := srv.sessions[id]; sess != nil {
				list = append(list, sess)
			}
		}
		srv.mu.Unlock()
	case len(args) != 2:
		c.Error(commands.ErrSyntax)
		return
	default:
		list = srv.allSessions()
	}
	var b strings.Builder
	for _, sess := range list {
		var own [][]byte
		if sess == s {
			own = args
		}
		b.WriteString(srv.clientLine(sess, own))
	}
	c.W.WriteVerbatim(b.String())
}

// clientLine is one CLIENT LIST line, with Redis 7.0's fields. args is
// the running command's when sess is the caller (its query buffer and
// argv-mem then count it, as Redis's do); the buffers' figures are as
// the client's connection last left them (client_bufs.go).
func (s *Server) clientLine(sess *session, args [][]byte) string {
	now := time.Now()
	sess.mu.Lock()
	name, cmd := sess.name, sess.cmdName
	sess.mu.Unlock()
	if cmd == "" {
		cmd = "NULL"
	}
	s.pubsub.mu.RLock()
	sub, psub, ssub := len(sess.channels), len(sess.patterns), len(sess.shards)
	out := sess.out
	s.pubsub.mu.RUnlock()
	m := sess.memory(args)
	if out != nil {
		m.omem += int64(out.pending())
		m.tot += int64(out.pending())
	}
	flags := ""
	multi := sess.multiLen.Load()
	if sess.monitoring.Load() {
		flags += "O"
	}
	if sub+psub+ssub > 0 {
		flags += "P"
	}
	if multi >= 0 {
		flags += "x"
	}
	if flags == "" {
		flags = "N"
	}
	age := int64(now.Sub(sess.created) / time.Second)
	idle := (now.UnixMilli() - sess.lastCmd.Load()) / 1000
	events := "r"
	if m.omem > 0 {
		events = "rw"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d "+
		"qbuf=%d qbuf-free=%d argv-mem=%d multi-mem=%d rbs=%d rbp=%d obl=%d oll=0 omem=%d tot-mem=%d events=%s cmd=%s user=%s redir=-1 resp=%d\n",
		sess.id, sess.addr, sess.laddr, connFD(sess), name, age, idle, flags, sess.DB(), sub, psub, ssub, multi,
		m.qbuf, m.qbufFree, m.argv, m.multi, m.qbufCap, m.qbufPeak, m.obl, m.omem, m.tot, events, cmd, sess.user.Load().Name, sess.proto())
}

// connFD returns the socket's file descriptor, -1 when unknown.
func connFD(sess *session) int { return fdOf(sess.netConn) }

// fdOf returns a connection's file descriptor, -1 when unknown.
func fdOf(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	raw.Control(func(f uintptr) { fd = int(f) })
	return fd
}

// clientKill implements both forms: CLIENT KILL addr (+OK or an error) and
// CLIENT KILL <filter> <value> ... (the number killed).
func clientKill(s *session, c *commands.Ctx, args [][]byte) {
	srv := s.srv
	if len(args) == 3 {
		for _, sess := range srv.allSessions() {
			if sess.addr == string(args[2]) {
				srv.kill(s, sess)
				c.OK()
				return
			}
		}
		c.Error(commands.ErrNoSuchClient)
		return
	}
	var f killFilter
	f.skipMe = true
	for i := 2; i < len(args); i += 2 {
		if i+1 >= len(args) {
			c.Error(commands.ErrSyntax)
			return
		}
		opt, val := args[i], args[i+1]
		switch {
		case commands.EqualFold(opt, "id"):
			n, ok := commands.ParseInt(val)
			if !ok || n < 1 {
				c.Error(commands.ErrClientID)
				return
			}
			f.id = n
		case commands.EqualFold(opt, "type"):
			t, ok := clientType(val)
			if !ok {
				c.Error(commands.Errorf(commands.ErrClientType, string(val)))
				return
			}
			f.typ = t
		case commands.EqualFold(opt, "addr"):
			f.addr = string(val)
		case commands.EqualFold(opt, "laddr"):
			f.laddr = string(val)
		case commands.EqualFold(opt, "user"):
			if srv.acl.User(string(val)) == nil {
				c.Error(commands.Errorf("ERR No such user '%s'", string(val)))
				return
			}
			f.user = string(val)
		case commands.EqualFold(opt, "skipme"):
			switch {
			case commands.EqualFold(val, "yes"):
				f.skipMe = true
			case commands.EqualFold(val, "no"):
				f.skipMe = false
			default:
				c.Error(commands.ErrSyntax)
				return
			}
		default:
			c.Error(commands.ErrSyntax)
			return
		}
	}
	var n int64
	for _, sess := range srv.allSessions() {
		if !f.matches(s, sess) {
			continue
		}
		srv.kill(s, sess)
		n++
	}
	c.W.WriteInt(n)
}

// killFilter is CLIENT KILL's filters; zero values match every client.
type killFilter struct {
	id                     int64
	typ, addr, laddr, user string
	skipMe                 bool
}

func (f *killFilter) matches(caller, sess *session) bool {
	return (f.id == 0 || sess.id == f.id) && (f.typ == "" || caller.srv.typeOf(sess) == f.typ) &&
		(f.addr == "" || sess.addr == f.addr) && (f.laddr == "" || sess.laddr == f.laddr) &&
		!(f.skipMe && sess == caller) && (f.user == "" || sess.user.Load().Name == f.user)
}

// kill closes a client: the caller itself after this reply, another at
// once (its goroutine notices and cleans up).
func (s *Server) kill(caller, target *session) {
	if caller == target {
		target.closeAfterReply = true
		return
	}
	target.netConn.Close()
	// Its subscriptions end now, as Redis frees a killed client at once;
	// its own goroutine does the rest of the cleanup.
	s.unsubscribeAll(target)
}

func writeHelp(w interface {
	WriteArray(int)
	WriteStatus(string)
}, lines []string) {
	w.WriteArray(len(lines))
	for _, l := range lines {
		w.WriteStatus(l)
	}
}
