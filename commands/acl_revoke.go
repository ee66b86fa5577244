package commands

// ChannelGrant is the channel patterns a user keeps after ACL SETUSER
// took some away: its subscribed connections may stay only while every
// subscription still passes them. Redis 7.0 pools the patterns of the
// root and of every selector for this test.
type ChannelGrant []string

// Permits reports whether a subscription may stay: a channel (or shard
// channel) must match one of the patterns, a PSUBSCRIBE pattern must be
// one of them as written, as when it was subscribed.
func (g ChannelGrant) Permits(name string, pattern bool) bool {
	for _, p := range g {
		if pattern && p == name || !pattern && GlobMatch(p, []byte(name), false) {
			return true
		}
	}
	return false
}

// channelsRevoked is Redis 7.0's test of whether a change to a user may
// have taken away a channel some connection is subscribed to: not when
// the new state allows every channel, nor when every pattern of the old
// state is still among the new ones (verbatim, wherever it is). Otherwise
// it returns the new patterns and true.
func channelsRevoked(old, cur *aclPerms) (ChannelGrant, bool) {
	var grant ChannelGrant
	for _, s := range cur.all() {
		if s.allChans {
			return nil, false
		}
		grant = append(grant, s.channels...)
	}
	for _, s := range old.all() {
		if s.allChans {
			return grant, true
		}
		for _, p := range s.channels {
			if !contains(grant, p) {
				return grant, true
			}
		}
	}
	return nil, false
}

// MaySubscribe reports whether u's channels, as they are now, permit a
// subscription to every name (patterns as written when pattern). The
// server asks again as it registers a subscription, under the registry's
// lock, so that one checked just before an ACL SETUSER took the channel
// away cannot be registered after the user's subscribers were looked at.
func (u *User) MaySubscribe(pattern bool, names [][]byte) bool {
	p := u.perms.Load()
	if p.full {
		return true
	}
	for _, s := range p.all() {
		if s.allChans || ChannelGrant(s.channels).permitsAll(pattern, names) {
			return true
		}
	}
	return false
}

func (g ChannelGrant) permitsAll(pattern bool, names [][]byte) bool {
	for _, n := range names {
		if !g.Permits(string(n), pattern) {
			return false
		}
	}
	return true
}
