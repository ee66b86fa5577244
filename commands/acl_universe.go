package commands

// redisACL (acl_redistable.go) is read from a redis-server 7.0:
//go:generate go run ../internal/aclgen -addr 127.0.0.1:6379 -o acl_redistable.go

import (
	"sort"
	"strings"
)

// aclCategoryNames are the ACL categories in the order ACL CAT lists them:
// Redis 7.0's, then qlessd's two for the functions of QLESS.
var aclCategoryNames = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
	"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting", "qless-read", "qless-write",
}

// aclCategory returns the bit of a category name (any case), 0 if unknown.
func aclCategory(name string) uint32 {
	for i, n := range aclCategoryNames {
		if strings.EqualFold(n, name) {
			return 1 << i
		}
	}
	return 0
}

// aclEntry is one command or subcommand that ACL rules name: its bit is
// its index in the universe.
type aclEntry struct {
	name   string // full name: "get", "config|get", "qless|put"
	cmd    *Cmd
	cats   uint32
	keys   string // what its keys need: "R", "W", "RW", "" (see redisACL)
	parent int    // index of its container, -1 for a command
	subs   []int  // a container's subcommands
	byName map[string]int
}

// aclUniverse numbers every command and subcommand of a table, as Redis
// gives each an id for the users' bitmaps.
type aclUniverse struct {
	entries []aclEntry
	byName  map[string]int // full name -> index
	top     []int          // commands, sorted by name
}

// newACLUniverse numbers the table's commands and every command Redis 7.0
// has, so that rules naming a Redis command qlessd lacks are taken as
// Redis takes them, and rules are described from the same counts.
func newACLUniverse(t *Table) *aclUniverse {
	u := &aclUniverse{byName: map[string]int{}}
	subs := map[string]map[string]string{} // command -> sub -> categories
	addSub := func(cmd, sub, cats string) {
		if subs[cmd] == nil {
			subs[cmd] = map[string]string{}
		}
		subs[cmd][sub] = cats
	}
	tops := map[string]bool{}
	for name, r := range redisACL {
		if bar := strings.IndexByte(name, '|'); bar >= 0 {
			addSub(name[:bar], name[bar+1:], r.cats)
		} else {
			tops[name] = true
		}
	}
	for _, cmd := range t.All() {
		tops[cmd.Name] = true
		for s, cats := range cmd.ACLSubs {
			addSub(cmd.Name, s, cats)
		}
	}
	names := sortedKeys(tops)
	for _, name := range names {
		cmd := t.cmds[name]
		cats := parseCats(redisACL[name].cats)
		if cmd != nil {
			cats = catsOf(cmd)
		}
		id := u.add(name, cmd, cats, -1)
		u.top = append(u.top, id)
		for _, s := range sortedKeys(subs[name]) {
			sid := u.add(name+"|"+s, cmd, parseCats(subs[name][s]), id)
			e := &u.entries[id]
			e.subs = append(e.subs, sid)
			if e.byName == nil {
				e.byName = map[string]int{}
			}
			e.byName[s] = sid
		}
	}
	return u
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (u *aclUniverse) add(name string, cmd *Cmd, cats uint32, parent int) int {
	id := len(u.entries)
	keys := redisACL[name].keys
	if _, ok := redisACL[name]; !ok && cmd != nil {
		keys = keysFromFlags(cmd)
	}
	u.entries = append(u.entries, aclEntry{name: name, cmd: cmd, cats: cats, keys: keys, parent: parent})
	u.byName[name] = id
	return id
}

// keysFromFlags is what the keys of a command Redis lacks need.
func keysFromFlags(cmd *Cmd) string {
	switch {
	case cmd.FirstKey <= 0:
		return ""
	case cmd.Flags&Write != 0:
		return "RW"
	default:
		return "R"
	}
}

// catsOf is a command's categories: Redis 7.0's for Redis's commands,
// else those aclCategories derives.
func catsOf(cmd *Cmd) uint32 {
	var bits uint32
	for _, c := range aclCategories(cmd) {
		bits |= aclCategory(strings.TrimPrefix(c, "@"))
	}
	return bits
}

func parseCats(s string) uint32 {
	var bits uint32
	for _, c := range strings.Fields(s) {
		bits |= aclCategory(c)
	}
	return bits
}

// resolve finds the entry a call runs: a container's subcommand when the
// first argument names one, else the command.
func (u *aclUniverse) resolve(cmd *Cmd, args [][]byte) int {
	id, ok := u.byName[cmd.Name]
	if !ok {
		return -1
	}
	e := &u.entries[id]
	if cmd.ACLSub != nil {
		if sid, ok := e.byName[cmd.ACLSub(args)]; ok {
			return sid
		}
		return id
	}
	if e.byName != nil && len(args) > 1 && len(args[1]) <= 32 {
		var buf [32]byte
		if sid, ok := e.byName[string(lowerInto(buf[:0], args[1]))]; ok {
			return sid
		}
	}
	return id
}

func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
