package tests

// Differential tests of Redis 7.0's ACL selectors: a user's root
// permissions and each "(...)" selector, sent to qlessd and to
// redis-server 7.0 and compared byte for byte (but for the order Redis
// lists single commands in, as in acl_test.go).

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// normSelRules normalises a user line of ACL LIST or the aclfile: the
// root rules and each selector's apart, so that no single command moves
// from one to another.
func normSelRules(line string) string {
	parts := strings.Split(line, " (")
	for i, p := range parts {
		if i == 0 {
			parts[i] = normRules(p)
			continue
		}
		parts[i] = "(" + normRules(strings.TrimSuffix(p, ")")) + ")"
	}
	return strings.Join(parts, " ")
}

func normSelList(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, l := range list {
		out[i] = normSelRules(l.(string))
	}
	return out
}

// normSelUser normalises ACL GETUSER's reply: the root commands and
// those of each selector.
func normSelUser(v any) any {
	list, ok := normUser(v).([]any)
	if !ok {
		return v
	}
	for i := 0; i+1 < len(list); i += 2 {
		if list[i] != "selectors" {
			continue
		}
		sels := list[i+1].([]any)
		out := make([]any, len(sels))
		for j, s := range sels {
			out[j] = normUser(s)
		}
		list[i+1] = out
	}
	return list
}

// aclSelectorSetCases make users with selectors, in one argument or
// spread over several, and refuse bad ones with Redis's texts.
var aclSelectorSetCases = [][]string{
	{"ACL", "SETUSER", "sel1", "on", ">pw", "(~key* +get)"},
	{"ACL", "SETUSER", "sel2", "on", ">pw", "~root*", "+del", "(~a* +get +set)", "(%R~r* %W~w* +@string &ch* -append)", "(allkeys +@hash)"},
	{"ACL", "SETUSER", "sel3", "on", ">pw", "(~x", "+get)", "(", "+set", "~y", ")", "(~z  +incr  )"},
	{"ACL", "SETUSER", "sel4", "(~a +get)", "(~b +get)", "clearselectors", "(~c +set)"},
	{"ACL", "SETUSER", "sel5", "(~a +get)", "reset", "on", "()", "( ~q )"},
	{"ACL", "SETUSER", "sel6", "(~x ~x %R~x allchannels +@all -@dangerous +select|0 -get)"},
	{"ACL", "SETUSER", "sel7", "(~a", "(~b", "+get)"},
	{"ACL", "SETUSER", "sel8", "(%RW~* %W~k nocommands allcommands resetkeys ~o resetchannels &c)"},
	{"ACL", "SETUSER", "sel9", "(~\"a\" '+get')", "(~\"unbalanced)", ""},
	// Shard channels are no keys: no key pattern is needed for them.
	{"ACL", "SETUSER", "shard", "on", "(allchannels +spublish +ssubscribe)", "(&s* +spublish)"},
	// Refused: the whole selector is named, nothing changes.
	{"ACL", "SETUSER", "sel1", "(~x"},
	{"ACL", "SETUSER", "sel1", "on", "(~x)", "(+get"},
	{"ACL", "SETUSER", "sel1", "(", "~a"},
	{"ACL", "SETUSER", "sel1", "(on)"},
	{"ACL", "SETUSER", "sel1", "(>pw)"},
	{"ACL", "SETUSER", "sel1", "(nopass)"},
	{"ACL", "SETUSER", "sel1", "(reset)"},
	{"ACL", "SETUSER", "sel1", "(clearselectors)"},
	{"ACL", "SETUSER", "sel1", "(foo)"},
	{"ACL", "SETUSER", "sel1", "(+nosuch)"},
	{"ACL", "SETUSER", "sel1", "(allkeys ~x)"},
	{"ACL", "SETUSER", "sel1", "(allchannels &x)"},
	{"ACL", "SETUSER", "sel1", "(%~x)"},
	{"ACL", "SETUSER", "sel1", "(%RR~x)"},
	{"ACL", "SETUSER", "sel1", "(~a b)"},
	{"ACL", "SETUSER", "sel1", "(~\"a b\")"},
	{"ACL", "SETUSER", "sel1", "(-select|0)"},
	{"ACL", "SETUSER", "sel1", "(+config|get|x)"},
	{"ACL", "SETUSER", "sel1", "((~x))"},
	{"ACL", "SETUSER", "sel1", "x)"},
	{"ACL", "SETUSER", "sel1", "~a b"},
	{"ACL", "SETUSER", "sel1", "&a b"},
	{"ACL", "SETUSER", "sel1", "%RR~x"},
	{"ACL", "SETUSER", "sel1", "%R"},
	{"ACL", "SETUSER", "sel1", "%RW~*", "~more"},
	{"ACL", "GETUSER", "sel1"},
}

// aclSelectorDryRuns ask what each user may do: allowed by the root or
// by a selector, denied for a command, a key or a channel (Redis reports
// a channel before a key before a command, and of two alike the one
// further in the arguments).
var aclSelectorDryRuns = [][]string{
	{"ACL", "DRYRUN", "sel1", "get", "key1"},
	{"ACL", "DRYRUN", "sel1", "get", "other"},
	{"ACL", "DRYRUN", "sel1", "set", "key1", "v"},
	{"ACL", "DRYRUN", "sel2", "del", "root1"},
	{"ACL", "DRYRUN", "sel2", "del", "a1"},
	{"ACL", "DRYRUN", "sel2", "get", "a1"},
	{"ACL", "DRYRUN", "sel2", "get", "root1"},
	{"ACL", "DRYRUN", "sel2", "get", "r1"},
	{"ACL", "DRYRUN", "sel2", "set", "r1", "v"},
	{"ACL", "DRYRUN", "sel2", "set", "w1", "v"},
	{"ACL", "DRYRUN", "sel2", "get", "w1"},
	{"ACL", "DRYRUN", "sel2", "append", "w1", "v"},
	{"ACL", "DRYRUN", "sel2", "hset", "anything", "f", "v"},
	{"ACL", "DRYRUN", "sel2", "mget", "a1", "a2"},
	{"ACL", "DRYRUN", "sel2", "mget", "a1", "zz", "r1"},
	{"ACL", "DRYRUN", "sel2", "mget", "zz", "a1", "yy"},
	{"ACL", "DRYRUN", "sel2", "publish", "ch1", "m"},
	{"ACL", "DRYRUN", "sel2", "publish", "other", "m"},
	{"ACL", "DRYRUN", "sel2", "subscribe", "ch1", "other"},
	{"ACL", "DRYRUN", "sel2", "lpush", "a1", "x"},
	{"ACL", "DRYRUN", "sel3", "get", "x"},
	{"ACL", "DRYRUN", "sel3", "get", "y"},
	{"ACL", "DRYRUN", "sel3", "set", "y", "v"},
	{"ACL", "DRYRUN", "sel3", "incr", "z"},
	{"ACL", "DRYRUN", "sel3", "incr", "x"},
	{"ACL", "DRYRUN", "sel4", "get", "a"},
	{"ACL", "DRYRUN", "sel4", "set", "c", "v"},
	{"ACL", "DRYRUN", "sel6", "select", "0"},
	{"ACL", "DRYRUN", "sel6", "select", "1"},
	{"ACL", "DRYRUN", "sel6", "get", "x"},
	{"ACL", "DRYRUN", "sel6", "set", "x", "v"},
	{"ACL", "DRYRUN", "sel6", "flushall"},
	{"ACL", "DRYRUN", "sel6", "publish", "any", "m"},
	{"ACL", "DRYRUN", "sel7", "get", "a"},
	{"ACL", "DRYRUN", "sel7", "get", "b"},
	{"ACL", "DRYRUN", "sel9", "get", "a"},
	{"ACL", "DRYRUN", "shard", "spublish", "ch", "m"},
	{"ACL", "DRYRUN", "shard", "ssubscribe", "ch", "s1"},
	{"ACL", "DRYRUN", "shard", "get", "ch"},
}

func TestACLSelectorsDifferential(t *testing.T) {
	a := startACLPair(t)
	sameAll(t, a.Pair, aclSelectorSetCases)
	for _, u := range []string{"sel1", "sel2", "sel3", "sel4", "sel5", "sel6", "sel7", "sel8", "sel9", "shard"} {
		a.sameNorm(t, normSelUser, "ACL", "GETUSER", u)
	}
	a.sameNorm(t, normSelList, "ACL", "LIST")
	sameAll(t, a.Pair, aclSelectorDryRuns)
}

// TestACLSelectorsAsUser runs commands as users whose rights come from
// selectors, on the top level, in MULTI and in scripts, and compares the
// replies and what ACL LOG recorded.
func TestACLSelectorsAsUser(t *testing.T) {
	a := startACLPair(t)
	sameAll(t, a.Pair, [][]string{
		{"ACL", "SETUSER", "u", "on", ">pw", "~root*", "+del", "+multi", "+exec", "+eval",
			"(~a* +get +set)", "(%R~r* %W~w* +@string &ch* +publish)"},
		{"SET", "a1", "v"}, {"SET", "r1", "v"},
	})
	u := a.as(t, "u", "pw")
	sameAll(t, u, [][]string{
		{"GET", "a1"},
		{"SET", "a2", "v"},
		{"GET", "r1"},
		{"SET", "r1", "v"},
		{"SET", "w1", "v"},
		{"GET", "w1"},
		{"DEL", "root1"},
		{"DEL", "a1"},
		{"HSET", "a1", "f", "v"},
		{"MGET", "a1", "r1"},
		{"MGET", "a1", "zz", "r1"},
		{"PUBLISH", "ch1", "m"},
		{"PUBLISH", "other", "m"},
		{"EVAL", "return redis.call('get','a1')", "0"},
		{"EVAL", "return redis.call('get','root1')", "0"},
		{"EVAL", "return redis.call('hget','a1','f')", "0"},
		{"EVAL", "return redis.pcall('set','r1','v')", "0"},
		{"MULTI"},
		{"GET", "a1"},
		{"HGET", "a1", "f"},
		{"SET", "w2", "v"},
		{"EXEC"},
	})
	a.sameNorm(t, normLog, "ACL", "LOG")
	// The user loses the selector between MULTI and EXEC: EXEC checks again.
	u.Same(t, "MULTI")
	u.Same(t, "GET", "a1")
	a.Same(t, "ACL", "SETUSER", "u", "clearselectors")
	u.Same(t, "EXEC")
	u.Same(t, "GET", "a1")
	a.sameNorm(t, normLog, "ACL", "LOG", "2")
}

// TestACLSelectorsFile: ACL SAVE writes selectors as Redis does, ACL LOAD
// reads them back (one argument or spread over several words), and a bad
// selector in the file is reported in Redis's words.
func TestACLSelectorsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	writeACLFile(t, file, "user default on nopass ~* &* +@all\n")
	q, r := StartQlessd(t, "", "--aclfile", file), StartRedis(t, "--aclfile", file)
	p := &Pair{Q: DialRaw(t, q.Addr), R: DialRaw(t, r.Addr), QP: q, RP: r}
	sameAll(t, p, [][]string{
		{"ACL", "SETUSER", "s", "on", ">p", "~root", "+del", "(~a* +get)", "(%R~r* %W~w* &c +@string -append)", "(allkeys allchannels +@all -@dangerous)"},
		{"ACL", "SETUSER", "t", "off", "(+ping)"},
	})
	sameACLSave(t, p, file, normSelRules)
	// The file Redis saved, loaded by both: the same users come back.
	sameAll(t, p, [][]string{{"ACL", "DELUSER", "s", "t"}, {"ACL", "LOAD"}, {"ACL", "USERS"},
		{"ACL", "DRYRUN", "s", "get", "a1"}, {"ACL", "DRYRUN", "s", "get", "w1"}, {"ACL", "DRYRUN", "s", "set", "w1", "v"}})
	a := &aclPair{Pair: p, q: redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2}),
		r: redis.NewClient(&redis.Options{Addr: r.Addr, Protocol: 2})}
	defer a.q.Close()
	defer a.r.Close()
	a.sameNorm(t, normSelList, "ACL", "LIST")
	for _, text := range []string{
		"user default on nopass ~* &* +@all\nuser a on (~x +get) (+set  ~y)  (  ~z  ) (~\"a) ('~b')\n",
		"user default on nopass ~* &* +@all\nuser a on (~x +nosuch) (foo) (+set ~y)\n",
		"user default on nopass ~* &* +@all\nuser a (~x\n",
		"user default on nopass ~* &* +@all\nuser a (~x +get) (%R~\"a b\")\n",
		"user default on nopass ~* &* +@all\nuser a (~x) (on)\nuser a (~y)\n",
	} {
		writeACLFile(t, file, text)
		p.Same(t, "ACL", "LOAD")
		p.SameSorted(t, "ACL", "USERS")
		p.Same(t, "ACL", "DRYRUN", "a", "get", "x")
		a.sameNorm(t, normSelList, "ACL", "LIST")
	}
}

// aclReadWriteCases check %R~ and %W~ key by key, as Redis's key specs
// tell what each command does to each of its keys: COPY reads its source
// and writes its destination, LMOVE reads and writes both, SET writes
// (and reads with GET), BITFIELD reads only with GET alone.
var aclReadWriteCases = [][]string{
	{"GET", "r1"}, {"GET", "w1"}, {"GET", "rw1"},
	{"SET", "r1", "v"}, {"SET", "w1", "v"}, {"SET", "w1", "v", "GET"}, {"SET", "rw1", "v", "GET"},
	{"COPY", "r1", "w2"}, {"COPY", "w1", "w2"}, {"COPY", "r1", "r2"}, {"COPY", "rw1", "rw2", "REPLACE"},
	{"LMOVE", "r1", "w1", "LEFT", "RIGHT"}, {"LMOVE", "rwl", "rw2", "LEFT", "RIGHT"}, {"LMOVE", "rwl", "w1", "LEFT", "LEFT"},
	{"RPOPLPUSH", "rwl", "w1"},
	{"RENAME", "rw2", "w3"}, {"RENAME", "r1", "w3"},
	{"BITFIELD", "r1", "GET", "u8", "0"}, {"BITFIELD", "r1", "SET", "u8", "0", "1"}, {"BITFIELD", "rw1", "INCRBY", "u8", "0", "1"},
	{"ZUNIONSTORE", "w6", "2", "r1", "r2"}, {"ZUNIONSTORE", "r6", "2", "r1", "r2"}, {"ZUNIONSTORE", "w6", "2", "r1", "w1"},
	{"MSET", "w1", "a", "w2", "b"}, {"MSET", "w1", "a", "r2", "b"},
	{"EXISTS", "r1", "w1"}, {"DEL", "r1"}, {"DEL", "w7"},
}

func TestACLSelectorsReadWriteKeys(t *testing.T) {
	a := startACLPair(t)
	sameAll(t, a.Pair, [][]string{
		{"ACL", "SETUSER", "root", "on", ">pw", "+@all", "%R~r*", "%W~w*", "~rw*"},
		{"ACL", "SETUSER", "sel", "on", ">pw", "(+@all %R~r* %W~w*)", "(+@all ~rw*)"},
		{"ACL", "SETUSER", "mix", "on", ">pw", "+@read", "~r*", "(+@write %W~w*)"},
		{"RPUSH", "rwl", "a", "b", "c", "d"}, {"SET", "r1", "1"}, {"SET", "rw1", "x"}, {"SET", "r2", "2"},
	})
	for _, user := range []string{"root", "sel"} {
		u := a.as(t, user, "pw")
		sameAll(t, u, aclReadWriteCases)
		for _, c := range aclReadWriteCases {
			a.Same(t, append([]string{"ACL", "DRYRUN", user}, c...)...)
		}
	}
	for _, c := range aclReadWriteCases {
		a.Same(t, append([]string{"ACL", "DRYRUN", "mix"}, c...)...)
	}
	// A count that is not one: Redis's key finders read it as atoi does
	// and name no keys when it is out of range; a container's unknown
	// subcommand is no command; a subcommand's own arity is checked.
	for _, user := range []string{"root", "sel", "mix"} {
		for _, c := range [][]string{
			{"ZUNIONSTORE", "r6", "x", "w1"}, {"ZUNIONSTORE", "r6", "2x", "w1", "r1"}, {"ZUNIONSTORE", "r6", "5", "w1"},
			{"ZINTER", "0", "r1"}, {"LMPOP", "1x", "w1", "LEFT"}, {"EVAL", "return 1", "1x", "zz"},
			{"EVAL", "return 1", " 1", "w1"}, {"EVAL", "return 1", "0"}, {"CONFIG", "nosuch"}, {"CONFIG"},
			{"CONFIG", "GET"}, {"CONFIG", "GET", "a", "b"}, {"MEMORY", "USAGE"}, {"MEMORY", "USAGE", "r1"},
			{"CLIENT", "KILL"}, {"ACL", "WHOAMI", "x"}, {"ACL", "WHOAMI"},
		} {
			a.Same(t, append([]string{"ACL", "DRYRUN", user}, c...)...)
		}
	}
	a.sameNorm(t, normLog, "ACL", "LOG", "5")
}
