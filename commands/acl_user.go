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

// keyPattern is a ~, %R~ or %W~ rule.
type keyPattern struct {
	read, write bool
	pattern     string
}

// aclPerms is one state of a user: what ACL GETUSER shows.
type aclPerms struct {
	on, nopass bool
	sanitize   string // "", "sanitize-payload" or "skip-sanitize-payload"
	passwords  []string
	// future is Redis's reserved command bit, set by +@all only: the user
	// may run commands added later, and its rules start from +@all.
	future    bool
	allowed   []uint64 // bit per universe entry
	firstArgs map[int][]string
	keys      []keyPattern
	allKeys   bool
	channels  []string
	allChans  bool
	// full is the hot path's test: every command, key and channel.
	full bool
}

func (p *aclPerms) clone() *aclPerms {
	q := *p
	q.passwords = append([]string(nil), p.passwords...)
	q.allowed = append([]uint64(nil), p.allowed...)
	q.keys = append([]keyPattern(nil), p.keys...)
	q.channels = append([]string(nil), p.channels...)
	q.firstArgs = map[int][]string{}
	for k, v := range p.firstArgs {
		q.firstArgs[k] = append([]string(nil), v...)
	}
	return &q
}

func (p *aclPerms) bit(id int) bool { return p.allowed[id/64]&(1<<(id%64)) != 0 }

func (p *aclPerms) setBit(id int, on bool) {
	if on {
		p.allowed[id/64] |= 1 << (id % 64)
	} else {
		p.allowed[id/64] &^= 1 << (id % 64)
	}
}

// Allowed reports whether the user may run the entry named fullName
// ("get", "qless|put"): the question the dashboard asks.
func (u *User) Allowed(a *ACL, fullName string) bool {
	id, ok := a.uni.byName[strings.ToLower(fullName)]
	if !ok {
		return false
	}
	p := u.perms.Load()
	return p.full || p.bit(id)
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

// updateFull recomputes the hot path's flag.
func (p *aclPerms) updateFull(n int) {
	all := true
	for id := 0; id < n && all; id++ {
		all = p.bit(id)
	}
	p.full = all && p.allKeys && p.allChans
}
