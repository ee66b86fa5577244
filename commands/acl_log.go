package commands

import (
	"strings"
	"time"
)

// aclLogEntry is one ACL LOG entry, newest first in the log.
type aclLogEntry struct {
	count                         int64
	reason, context, object, user string
	created                       time.Time
	clientInfo                    string
}

// aclLog holds the entries under the ACL's lock.
type aclLog struct {
	entries []*aclLogEntry
}

// logDenial records a denial or a failed AUTH. An entry like a recent one
// (same reason, context, object and user, within 60 seconds) counts into
// it and moves to the top, as Redis 7.0 groups them.
func (a *ACL) logDenial(sess Session, user, reason, context, object string) {
	info := ""
	if s, ok := sess.(ACLSession); ok {
		info = strings.TrimSuffix(s.ClientInfo(), "\n")
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	l := &a.log
	for i, e := range l.entries {
		if e.reason == reason && e.context == context && e.object == object && e.user == user &&
			now.Sub(e.created) <= time.Minute {
			e.count++
			e.created, e.clientInfo = now, info
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = e
			return
		}
	}
	e := &aclLogEntry{count: 1, reason: reason, context: context, object: object, user: user, created: now, clientInfo: info}
	l.entries = append([]*aclLogEntry{e}, l.entries...)
	if max := int(a.LogMax.Load()); len(l.entries) > max {
		l.entries = l.entries[:max]
	}
}

// LogAuthFailure records a refused AUTH or HELLO AUTH for user.
func (a *ACL) LogAuthFailure(sess Session, user, cmdName string) {
	a.logDenial(sess, user, "auth", "toplevel", cmdName)
}

// aclLogCmd is ACL LOG [count | RESET].
func (a *ACL) aclLogCmd(c *Ctx, args [][]byte) {
	count := int64(10)
	if len(args) == 1 {
		if EqualFold(args[0], "reset") {
			a.mu.Lock()
			a.log.entries = nil
			a.mu.Unlock()
			c.OK()
			return
		}
		n, ok := ParseInt(args[0])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		count = max(n, 0)
	}
	now := time.Now()
	a.mu.Lock()
	list := a.log.entries
	if int64(len(list)) > count {
		list = list[:count]
	}
	copied := make([]aclLogEntry, len(list))
	for i, e := range list {
		copied[i] = *e
	}
	a.mu.Unlock()
	c.W.WriteArray(len(copied))
	for _, e := range copied {
		c.W.WriteMap(7)
		c.W.WriteBulkString("count")
		c.W.WriteInt(e.count)
		for _, kv := range [][2]string{{"reason", e.reason}, {"context", e.context}, {"object", e.object}, {"username", e.user}} {
			c.W.WriteBulkString(kv[0])
			c.W.WriteBulkString(kv[1])
		}
		c.W.WriteBulkString("age-seconds")
		age := float64(now.Sub(e.created).Milliseconds()) / 1000
		c.W.WriteDouble(age)
		c.W.WriteBulkString("client-info")
		c.W.WriteBulkString(e.clientInfo)
	}
}
