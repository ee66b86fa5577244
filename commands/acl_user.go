package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
)

// User is an ACL user. Its permissions are an immutable snapshot swapped
// whole by ACL SETUSER, so the connections authenticated as the user see
// a change at their next command without a lock.
type User struct {
	Name  string
	perms atomic.Pointer[aclPerms]
}

// aclPerms is one state of a user: what ACL GETUSER shows.
type aclPerms struct {
	on, nopass bool
	sanitize   string // "", "sanitize-payload" or "skip-sanitize-payload"
	passwords  []string
	// aclSelector is the root permissions, checked first.
	aclSelector
	// selectors are the others, in the order they were added.
	selectors []*aclSelector
	// full is the hot path's test: every command, key and channel.
	full bool
}

func (p *aclPerms) clone() *aclPerms {
	q := *p
	q.passwords = append([]string(nil), p.passwords...)
	q.aclSelector = p.copySel()
	q.selectors = make([]*aclSelector, len(p.selectors))
	for i, s := range p.selectors {
		c := s.copySel()
		q.selectors[i] = &c
	}
	return &q
}

// all returns the root permissions and then each selector: the order in
// which Redis checks them.
func (p *aclPerms) all() []*aclSelector {
	return append([]*aclSelector{&p.aclSelector}, p.selectors...)
}

// Allowed reports whether the user may run the entry named fullName
// ("get", "qless|put"): the question the dashboard asks.
func (u *User) Allowed(a *ACL, fullName string) bool {
	id, ok := a.uni.byName[strings.ToLower(fullName)]
	if !ok {
		return false
	}
	p := u.perms.Load()
	if p.full || p.bit(id) {
		return true
	}
	for _, s := range p.selectors {
		if s.bit(id) {
			return true
		}
	}
	return false
}

// Unrestricted reports whether the user may run anything on any key and
// channel: the one test the dispatcher makes for such users.
func (u *User) Unrestricted() bool { return u.perms.Load().full }

// Enabled reports whether the user is on.
func (u *User) Enabled() bool { return u.perms.Load().on }

// checkPass reports whether pass opens the user: on, and nopass or one of
// its password hashes matches.
func (u *User) checkPass(pass []byte) bool {
	p := u.perms.Load()
	if !p.on {
		return false
	}
	if p.nopass {
		return true
	}
	h := hashPass(pass)
	ok := false
	for _, have := range p.passwords {
		// Compare all, in constant time per hash, so timing does not
		// tell which one matched.
		if subtleEq(have, h) {
			ok = true
		}
	}
	return ok
}

func hashPass(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

func subtleEq(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var d byte
	for i := 0; i < len(a); i++ {
		d |= a[i] ^ b[i]
	}
	return d == 0
}

// updateFull recomputes the hot path's flag: set when the root or a
// selector allows everything.
func (p *aclPerms) updateFull(n int) {
	p.full = false
	for _, s := range p.all() {
		all := s.allKeys && s.allChans
		for id := 0; id < n && all; id++ {
			all = s.bit(id)
		}
		p.full = p.full || all
	}
}
