package tests

// Connections lose what their user lost, as in Redis 7.0: ACL SETUSER
// closes the user's subscribers to a channel or pattern it no longer
// grants, ACL DELUSER closes every connection of the deleted user, and
// ACL LOAD every connection of a user other than default. Each step is
// checked on qlessd and on redis-server 7.0 side by side.

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// bothClosed fails unless both servers closed p's connections.
func bothClosed(t *testing.T, p *Pair) {
	t.Helper()
	expectDropped(t, p.Q)
	expectDropped(t, p.R)
}

// expectDropped is expectClosed for a connection that may have had a
// command unread when it was closed, hence a reset rather than an EOF.
func expectDropped(t *testing.T, r *Raw) {
	t.Helper()
	r.c.SetReadDeadline(time.Now().Add(waitTimeout))
	buf := make([]byte, 64)
	n, err := r.rd.Read(buf)
	if err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("connection not closed: read %q, %v", buf[:n], err)
	}
}

// subscribedAs is a Pair of connections authenticated as user and
// subscribed with cmd (SUBSCRIBE, PSUBSCRIBE) to name.
func subscribedAs(t *testing.T, a *aclPair, user, cmd, name string) *Pair {
	t.Helper()
	p := a.as(t, user, "pw")
	p.Same(t, cmd, name)
	return p
}

// resp3SubscribedAs is subscribedAs over RESP3 (HELLO 3 AUTH).
func resp3SubscribedAs(t *testing.T, a *aclPair, user, channel string) *Pair {
	t.Helper()
	p := &Pair{Q: DialRaw(t, a.QP.Addr), R: DialRaw(t, a.RP.Addr), QP: a.QP, RP: a.RP}
	for _, c := range []*Raw{p.Q, p.R} {
		// HELLO's reply names the server: only its type is compared.
		if got := c.Do(t, "HELLO", "3", "AUTH", user, "pw"); got[0] != '%' {
			t.Fatalf("HELLO 3 AUTH %s: %q", user, got)
		}
	}
	p.Same(t, "SUBSCRIBE", channel)
	return p
}

func TestACLRevokeDifferential(t *testing.T) {
	t.Parallel()
	a := startACLPair(t)
	a.Same(t, "ACL", "SETUSER", "u", "on", ">pw", "~*", "+@all", "&a", "&b", "&c*")
	onA := subscribedAs(t, a, "u", "SUBSCRIBE", "a")
	onB := subscribedAs(t, a, "u", "SUBSCRIBE", "b")
	onPat := subscribedAs(t, a, "u", "PSUBSCRIBE", "c*")
	onA3 := resp3SubscribedAs(t, a, "u", "a")
	plain := a.as(t, "u", "pw")
	// Another user's subscriber to a is no concern of u's rules.
	a.Same(t, "ACL", "SETUSER", "other", "on", ">pw", "+@all", "&a")
	otherOnA := subscribedAs(t, a, "other", "SUBSCRIBE", "a")

	// Adding channels takes none away: nobody is closed.
	a.Same(t, "ACL", "SETUSER", "u", "&d", "(+get &e)")
	a.Same(t, "ACL", "SETUSER", "u", "resetchannels", "&b", "&c*")
	bothClosed(t, onA)
	bothClosed(t, onA3)
	for _, p := range []*Pair{onB, onPat, plain, otherOnA} {
		p.Same(t, "PING")
	}

	// A pattern subscription stays only while that pattern is granted as
	// written; "c1" would match no pattern.
	a.Same(t, "ACL", "SETUSER", "u", "resetchannels", "&b", "&c1", "&c**")
	bothClosed(t, onPat)
	onB.Same(t, "PING")

	// A channel may stay through a selector's pattern.
	a.Same(t, "ACL", "SETUSER", "u", "resetchannels", "(+ping &b)")
	onB.Same(t, "PING")

	// The default user's subscribers too.
	def := &Pair{Q: DialRaw(t, a.QP.Addr), R: DialRaw(t, a.RP.Addr)}
	def.Same(t, "SUBSCRIBE", "a")
	a.Same(t, "ACL", "SETUSER", "default", "resetchannels", "&b")
	bothClosed(t, def)
	a.Same(t, "ACL", "SETUSER", "default", "allchannels")

	a.Same(t, "ACL", "DELUSER", "u")
	bothClosed(t, onB)
	bothClosed(t, plain)
	otherOnA.Same(t, "PING")
	// None of this is an ACL LOG entry.
	a.Same(t, "ACL", "LOG")
}

// TestACLRevokeSelf: a RESP3 subscriber that takes its own channel away
// gets its +OK, then is closed, and nothing after it in the pipeline
// runs. qlessd only: redis-server 7.0 crashes here (it frees the client
// that is running the command; Redis fixed that in 7.4 by closing after
// the reply, as qlessd does).
func TestACLRevokeSelf(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	admin := DialRaw(t, q.Addr)
	if got := admin.Do(t, "ACL", "SETUSER", "u", "on", ">pw", "~*", "+@all", "&a"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	c := DialRaw(t, q.Addr)
	c.Do(t, "HELLO", "3", "AUTH", "u", "pw")
	c.Do(t, "SUBSCRIBE", "a")
	c.Send(t, "ACL", "SETUSER", "u", "resetchannels")
	c.Send(t, "SET", "after", "1")
	if got := c.Read(t); got != "+OK\r\n" {
		t.Fatalf("ACL SETUSER of itself: %q", got)
	}
	expectClosed(t, c)
	if got := admin.Do(t, "EXISTS", "after"); got != ":0\r\n" {
		t.Fatalf("the command after ACL SETUSER ran: EXISTS %q", got)
	}
}

// TestACLLoadDisconnects: a successful ACL LOAD closes every connection
// of a user other than default, changed or not, the issuing one after
// its +OK; default's stay, subscribers included, whatever it lost.
func TestACLLoadDisconnects(t *testing.T) {
	t.Parallel()
	const users = "user default on nopass ~* &* +@all\nuser v on >pw ~* &a +@all\nuser w on >pw ~* &* +@all\n"
	qf, rf := filepath.Join(t.TempDir(), "users.acl"), filepath.Join(t.TempDir(), "users.acl")
	for _, f := range []string{qf, rf} {
		if err := os.WriteFile(f, []byte(users), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	qp, rp := StartQlessd(t, "", "--aclfile", qf), StartRedis(t, "--aclfile", rf)
	a := &aclPair{Pair: &Pair{Q: DialRaw(t, qp.Addr), R: DialRaw(t, rp.Addr), QP: qp, RP: rp}}
	v := a.as(t, "v", "pw")
	vOnA := subscribedAs(t, a, "v", "SUBSCRIBE", "a")
	defOnB := &Pair{Q: DialRaw(t, qp.Addr), R: DialRaw(t, rp.Addr)}
	defOnB.Same(t, "SUBSCRIBE", "b")
	w := a.as(t, "w", "pw")

	// default loses channel b; v and w are unchanged.
	const edited = "user default on nopass ~* &a +@all\nuser v on >pw ~* &a +@all\nuser w on >pw ~* &* +@all\n"
	for _, f := range []string{qf, rf} {
		if err := os.WriteFile(f, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*Raw{w.Q, w.R} {
		c.Send(t, "ACL", "LOAD")
		c.Send(t, "PING")
	}
	if q, r := w.Q.Read(t), w.R.Read(t); q != r || q != "+OK\r\n" {
		t.Fatalf("ACL LOAD: qlessd %q, redis %q", q, r)
	}
	bothClosed(t, w)
	bothClosed(t, v)
	bothClosed(t, vOnA)
	defOnB.Same(t, "PING")
	a.as(t, "v", "pw").Same(t, "ACL", "WHOAMI")
}
