package commands

import "strings"

// ACL denial reasons, as ACL LOG names them.
const (
	aclOK = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedChannel
)

var aclReasonNames = [...]string{"", "command", "key", "channel"}

// Denial is why a user may not run a call: what ACL LOG records.
type Denial struct {
	Reason int
	Object string // the command's full name, the key or the channel
}

// Check reports whether u may run cmd with args, as Redis 7.0 checks:
// the root permissions and then each selector, each the command (or
// subcommand, or first argument), then the keys, then the channels; the
// first that allows all of the call lets it run. Callers test
// u.Unrestricted() first, the hot path's one flag.
func (a *ACL) Check(u *User, cmd *Cmd, args [][]byte) (Denial, bool) {
	p := u.perms.Load()
	if p.full {
		return Denial{}, true
	}
	id := a.uni.resolve(cmd, args)
	if id < 0 {
		return Denial{}, true // added after the users were made: internal
	}
	e := &a.uni.entries[id]
	var keys []keyRef
	keysFound := false
	// Of the denials, Redis reports a channel before a key before the
	// command, and of two alike the one further in the arguments.
	worst, worstAt := aclDeniedCmd, 0
	for i := -1; i < len(p.selectors); i++ {
		s := &p.aclSelector
		if i >= 0 {
			s = p.selectors[i]
		}
		if !s.allKeys && e.keys != "" && !keysFound {
			keys, keysFound = aclCallKeys(e, cmd, args), true
		}
		reason, at := s.check(cmd, id, keys, args)
		if reason == aclOK {
			return Denial{}, true
		}
		if reason > worst || reason == worst && at > worstAt {
			worst, worstAt = reason, at
		}
	}
	if worst == aclDeniedCmd {
		return Denial{aclDeniedCmd, e.name}, false
	}
	return Denial{worst, string(args[worstAt])}, false
}

// check is one selector's verdict on a call, and the argument at fault
// for a key or a channel.
func (s *aclSelector) check(cmd *Cmd, id int, keys []keyRef, args [][]byte) (int, int) {
	if cmd.Flags&NoAuth == 0 && !s.bit(id) && !firstArgAllowed(s, id, args) {
		return aclDeniedCmd, 0
	}
	if !s.allKeys {
		for _, k := range keys {
			if !keyAllowed(s, args[k.pos], k.read, k.write) {
				return aclDeniedKey, k.pos
			}
		}
	}
	if !s.allChans {
		if at, ok := channelsAllowed(s, cmd.Name, args); !ok {
			return aclDeniedChannel, at
		}
	}
	return aclOK, 0
}

func firstArgAllowed(p *aclSelector, id int, args [][]byte) bool {
	if len(args) < 2 {
		return false
	}
	for _, a := range p.firstArgs[id] {
		if EqualFold(args[1], a) {
			return true
		}
	}
	return false
}

// keyRef is a key argument of a call and what the call does to it.
type keyRef struct {
	pos         int
	read, write bool
}

// numKeysAt is where the commands whose keys follow a count have it; the
// table's first/last/step cover only what comes before (a destination).
var numKeysAt = map[string]int{
	"eval": 2, "evalsha": 2, "eval_ro": 2, "evalsha_ro": 2, "fcall": 2, "fcall_ro": 2,
	"zunionstore": 2, "zinterstore": 2, "zdiffstore": 2, "blmpop": 2, "bzmpop": 2,
	"zunion": 1, "zinter": 1, "zdiff": 1, "zintercard": 1, "sintercard": 1, "lmpop": 1, "zmpop": 1,
}

// callKeyPositions returns where a call's key arguments are: the table's
// first/last/step, the keys after a count, and MEMORY USAGE's key.
func callKeyPositions(cmd *Cmd, args [][]byte) []int {
	var out []int
	if cmd.FirstKey > 0 {
		last, step := cmd.LastKey, max(cmd.Step, 1)
		if last < 0 {
			last += len(args)
		}
		for i := cmd.FirstKey; i <= last && i < len(args); i += step {
			out = append(out, i)
		}
	}
	if at, ok := numKeysAt[cmd.Name]; ok && len(args) > at {
		n, ok := ParseInt(args[at])
		if ok && n > 0 && int(n) <= len(args)-at-1 {
			for i := 0; i < int(n); i++ {
				out = append(out, at+1+i)
			}
		}
	}
	if cmd.Name == "memory" && len(args) > 2 && EqualFold(args[1], "usage") {
		out = append(out, 2)
	}
	return out
}

// callKeyRefs returns a call's keys, each needing what need (the
// command's R, W, RW or K) asks.
func callKeyRefs(cmd *Cmd, need string, args [][]byte) []keyRef {
	needR, needW := strings.IndexByte(need, 'R') >= 0, strings.IndexByte(need, 'W') >= 0
	if cmd.Name == "set" && !hasArg(args[3:], "get") {
		needR = false // SET without GET only overwrites, as Redis's getkeys tells
	}
	pos := callKeyPositions(cmd, args)
	out := make([]keyRef, len(pos))
	for i, at := range pos {
		out[i] = keyRef{pos: at, read: needR, write: needW}
	}
	return out
}

func keyAllowed(p *aclSelector, key []byte, needR, needW bool) bool {
	for _, kp := range p.keys {
		if (kp.read || !needR) && (kp.write || !needW) && GlobMatch(kp.pattern, key, false) {
			return true
		}
	}
	return false
}

func hasArg(args [][]byte, word string) bool {
	for _, a := range args {
		if EqualFold(a, word) {
			return true
		}
	}
	return false
}

// channelsAllowed checks the channels of PUBLISH and the subscribe
// commands; a PSUBSCRIBE pattern must be one of the user's as written.
// It returns the argument at fault.
func channelsAllowed(p *aclSelector, name string, args [][]byte) (int, bool) {
	from, to := 1, len(args)
	literal := false
	switch name {
	case "publish", "spublish":
		to = min(2, len(args))
	case "subscribe", "ssubscribe":
	case "psubscribe":
		literal = true
	default:
		return 0, true
	}
	for at := from; at < to; at++ {
		ch := args[at]
		ok := false
		for _, pat := range p.channels {
			if literal && pat == string(ch) || !literal && GlobMatch(pat, ch, false) {
				ok = true
				break
			}
		}
		if !ok {
			return at, false
		}
	}
	return 0, true
}

// NoPerm is the error a client gets for a denial at the top level.
func NoPerm(d Denial) string {
	switch d.Reason {
	case aclDeniedCmd:
		return "NOPERM this user has no permissions to run the '" + d.Object + "' command"
	case aclDeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	}
	return "NOPERM this user has no permissions to access one of the channels used as arguments"
}

// ExecNoPerm is the error in EXEC's reply for a queued command the user
// may no longer run.
func ExecNoPerm(d Denial) string {
	reason := "no permission to access one of the channels used as arguments"
	switch d.Reason {
	case aclDeniedCmd:
		reason = "no permission to execute the command or subcommand"
	case aclDeniedKey:
		reason = "no permission to touch the specified keys"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. " +
		"This command is no longer allowed for the following reason: " + reason
}

// scriptNoPerm is the error redis.call gets for a denial.
func scriptNoPerm(d Denial) string {
	switch d.Reason {
	case aclDeniedCmd:
		return "ERR The user executing the script can't run this command or subcommand"
	case aclDeniedKey:
		return "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
	}
	return "ERR The user executing the script can't publish to the channel mentioned in the command"
}

// dryRunText is ACL DRYRUN's reply for a denial.
func dryRunText(d Denial) string {
	switch d.Reason {
	case aclDeniedCmd:
		return "This user has no permissions to run the '" + d.Object + "' command"
	case aclDeniedKey:
		return "This user has no permissions to access the '" + d.Object + "' key"
	}
	return "This user has no permissions to access the '" + d.Object + "' channel"
}

// ACLSession is a session that has a user: the server's connections.
type ACLSession interface {
	ACLUser() *User
	// ClientInfo is the connection's CLIENT LIST line, for ACL LOG.
	ClientInfo() string
}

// SessionUser returns the user a context runs as, nil for internal work.
func SessionUser(c *Ctx) *User {
	if s, ok := c.Sess.(ACLSession); ok {
		return s.ACLUser()
	}
	return nil
}

// CheckCall checks a call for a context's user and logs a denial in
// context ("toplevel", "multi" or "lua"); ok when allowed.
func (a *ACL) CheckCall(c *Ctx, cmd *Cmd, args [][]byte, context string) (Denial, bool) {
	u := SessionUser(c)
	if u == nil || u.Unrestricted() {
		return Denial{}, true
	}
	d, ok := a.Check(u, cmd, args)
	if !ok {
		a.logDenial(c.Sess, u.Name, aclReasonNames[d.Reason], context, d.Object)
	}
	return d, ok
}
