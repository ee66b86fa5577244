package commands

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync"
	"sync/atomic"
)

// ACL holds the users of a server, the ACL log, and the universe of
// commands their rules name.
type ACL struct {
	uni *aclUniverse

	mu    sync.Mutex
	users map[string]*User
	log   aclLog
	// Default is the user new connections start as.
	Default *User
	// needAuth is set while the default user cannot be used without a
	// password (it has one, or is off): new connections must AUTH.
	needAuth atomic.Bool
	// OnDelete, when set, closes the connections authenticated as users
	// that ACL DELUSER or ACL LOAD removed (the server sets it).
	OnDelete func(caller Session, users []*User)
	// OnRevoke, when set, closes the connections of user subscribed to a
	// channel or pattern that grant no longer permits, after ACL SETUSER
	// narrowed its channels (the server sets it).
	OnRevoke func(caller Session, user *User, grant ChannelGrant)
	// File is the aclfile parameter, read at start ("" for none).
	File string
	// LogMax is acl-log-max-len: how many entries ACL LOG keeps.
	LogMax atomic.Int64

	// internalUser may log in with internalPass, a secret that never
	// leaves the process: the dashboard's way in as http-user, whose
	// password qlessd is not told.
	internalUser, internalPass string
}

// NewACL gives the table its users: only "default", on, nopass, with every
// permission, or with password requirepass when that is set.
func NewACL(t *Table, requirepass string) *ACL {
	a := &ACL{uni: newACLUniverse(t), users: map[string]*User{}}
	a.LogMax.Store(128)
	a.Default = a.defaultUser()
	a.users["default"] = a.Default
	a.SetRequirePass(requirepass)
	t.ACL = a
	return a
}

func (a *ACL) defaultUser() *User {
	u := &User{Name: "default"}
	p := a.newPerms()
	for _, r := range []string{"on", "nopass", "~*", "&*", "+@all"} {
		a.apply(p, r) //nolint:errcheck // rules known to be good
	}
	p.updateFull(len(a.uni.entries))
	u.perms.Store(p)
	return u
}

// SetRequirePass applies requirepass to the default user as Redis does:
// resetpass, then >pass, or nopass for "".
func (a *ACL) SetRequirePass(pass string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.Default.perms.Load().clone()
	a.apply(p, "resetpass") //nolint:errcheck
	if pass == "" {
		a.apply(p, "nopass") //nolint:errcheck
	} else {
		a.apply(p, ">"+pass) //nolint:errcheck
	}
	a.store(a.Default, p)
}

// store publishes a user's new state.
func (a *ACL) store(u *User, p *aclPerms) {
	p.updateFull(len(a.uni.entries))
	u.perms.Store(p)
	if u == a.Default {
		a.needAuth.Store(!p.nopass || !p.on)
	}
}

// NeedAuth reports whether a new connection must authenticate.
func (a *ACL) NeedAuth() bool { return a.needAuth.Load() }

// DefaultNoPass reports whether the default user takes no password, which
// is what protected mode looks at.
func (a *ACL) DefaultNoPass() bool { return a.Default.perms.Load().nopass }

// User finds a user by name.
func (a *ACL) User(name string) *User {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.users[name]
}

// Authenticate returns the user that name and pass open, or nil.
func (a *ACL) Authenticate(name, pass []byte) *User {
	u := a.User(string(name))
	if u == nil {
		return nil
	}
	a.mu.Lock()
	internal := a.internalPass != "" && a.internalUser == u.Name && subtleEq(a.internalPass, string(pass))
	a.mu.Unlock()
	if internal && u.Enabled() || u.checkPass(pass) {
		return u
	}
	return nil
}

// InternalPass returns the secret with which a part of qlessd itself (the
// dashboard) logs in as user: 256 random bits made once, kept in memory.
func (a *ACL) InternalPass(user string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.internalPass == "" {
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			panic("qlessd: no random bytes for the internal password: " + err.Error())
		}
		a.internalPass = hex.EncodeToString(buf)
	}
	a.internalUser = user
	return a.internalPass
}

// May reports whether the user named name exists and may run the command
// or subcommand fullName ("qless|cancel").
func (a *ACL) May(name, fullName string) bool {
	u := a.User(name)
	return u != nil && u.Allowed(a, fullName)
}

// SetUser applies rules to a user, creating it when there is none; on an
// error nothing changes, and the error names the rule. When the change
// takes channels away from an existing user, its subscribers that lost
// one are closed, as in Redis 7.0.
func (a *ACL) SetUser(caller Session, name string, rules []string) (string, error) {
	a.mu.Lock()
	u := a.users[name]
	var p *aclPerms
	if u == nil {
		p = a.newPerms()
	} else {
		p = u.perms.Load().clone()
	}
	for _, r := range rules {
		if err := a.apply(p, r); err != nil {
			a.mu.Unlock()
			return r, err
		}
	}
	var grant ChannelGrant
	revoked := false
	if u == nil {
		u = &User{Name: name}
		a.users[name] = u
	} else {
		grant, revoked = channelsRevoked(u.perms.Load(), p)
	}
	a.store(u, p)
	a.mu.Unlock()
	if revoked && a.OnRevoke != nil {
		a.OnRevoke(caller, u, grant)
	}
	return "", nil
}

// names returns the user names sorted.
func (a *ACL) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, 0, len(a.users))
	for n := range a.users {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// deleteUsers removes users (never default) and counts those removed.
func (a *ACL) deleteUsers(caller Session, names []string) int {
	a.mu.Lock()
	var gone []*User
	for _, n := range names {
		if u, ok := a.users[n]; ok {
			delete(a.users, n)
			gone = append(gone, u)
		}
	}
	a.mu.Unlock()
	if len(gone) > 0 && a.OnDelete != nil {
		a.OnDelete(caller, gone)
	}
	return len(gone)
}
