package tests

// Differential tests of Redis 7.0's ACL: every ACL subcommand, AUTH with
// users, and the NOPERM cases, sent to qlessd and to redis-server 7.0.
// Replies are compared byte for byte, but for what differs by nature:
// GENPASS's random output, ACL LOG's age and client-info, the order Redis
// lists single commands in a user's rules (its hash table's, which changes
// from run to run), and qlessd's own commands (QLESS, RAFT) and categories.

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// aclPair is a Pair with go-redis clients beside the raw connections, for
// the replies compared after normalising.
type aclPair struct {
	*Pair
	q, r *redis.Client
}

func startACLPair(t *testing.T) *aclPair {
	t.Helper()
	p := StartPair(t)
	a := &aclPair{Pair: p,
		q: redis.NewClient(&redis.Options{Addr: p.QP.Addr, Protocol: 2}),
		r: redis.NewClient(&redis.Options{Addr: p.RP.Addr, Protocol: 2})}
	t.Cleanup(func() { a.q.Close(); a.r.Close() })
	return a
}

// as returns a Pair of raw connections authenticated as user on both.
func (a *aclPair) as(t *testing.T, user, pass string) *Pair {
	t.Helper()
	u := &Pair{Q: DialRaw(t, a.QP.Addr), R: DialRaw(t, a.RP.Addr), QP: a.QP, RP: a.RP}
	if got := u.Same(t, "AUTH", user, pass); got != "+OK\r\n" {
		t.Fatalf("AUTH %s: %q", user, got)
	}
	return u
}

// sameNorm sends args to both through go-redis and compares the replies
// after norm.
func (a *aclPair) sameNorm(t *testing.T, norm func(any) any, args ...string) {
	t.Helper()
	q, r := doAny(a.q, args...), doAny(a.r, args...)
	if nq, nr := norm(q), norm(r); !reflect.DeepEqual(nq, nr) {
		t.Errorf("%s\n  qlessd: %#v\n  redis:  %#v", quoteArgs(args), nq, nr)
	}
}

func doAny(c *redis.Client, args ...string) any {
	iargs := make([]any, len(args))
	for i, s := range args {
		iargs[i] = s
	}
	v, err := c.Do(context.Background(), iargs...).Result()
	if err != nil && err != redis.Nil {
		return "error: " + err.Error()
	}
	return v
}

// normRules orders the single-command rules of a user description (the
// words after the categories) and drops what only qlessd has.
func normRules(s string) string {
	var keep, singles []string
	for _, w := range strings.Fields(s) {
		switch {
		case qlessOnly(strings.TrimLeft(w, "+-@")):
		case (w[0] == '+' || w[0] == '-') && len(w) > 1 && w[1] != '@':
			singles = append(singles, w)
		default:
			keep = append(keep, w)
		}
	}
	sort.Strings(singles)
	return strings.Join(append(keep, singles...), " ")
}

// qlessOnly reports whether a command or category name is qlessd's own.
func qlessOnly(name string) bool {
	return name == "qless" || name == "raft" || strings.HasPrefix(name, "qless|") || strings.HasPrefix(name, "qless-")
}

// normUser normalises ACL GETUSER's reply: its commands string.
func normUser(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := append([]any(nil), list...)
	for i := 0; i+1 < len(out); i += 2 {
		if out[i] == "commands" {
			out[i+1] = normRules(out[i+1].(string))
		}
	}
	return out
}

// normList normalises ACL LIST's lines.
func normList(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, l := range list {
		out[i] = normRules(l.(string))
	}
	return out
}

// normCat sorts ACL CAT's names and drops qlessd's own.
func normCat(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	var out []string
	for _, n := range list {
		if !qlessOnly(n.(string)) {
			out = append(out, n.(string))
		}
	}
	sort.Strings(out)
	return out
}

// normLog blanks each ACL LOG entry's age, and its client-info but for
// being a CLIENT LIST line.
func normLog(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	var out []any
	for _, e := range list {
		entry := append([]any(nil), e.([]any)...)
		for i := 0; i+1 < len(entry); i += 2 {
			switch entry[i] {
			case "age-seconds":
				entry[i+1] = "age"
			case "client-info":
				info := entry[i+1].(string)
				entry[i+1] = strings.Contains(info, " user=") && strings.HasPrefix(info, "id=")
			}
		}
		out = append(out, entry)
	}
	return out
}

const aclHashA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" // sha256("a")

// aclSubcommandCases are the ACL calls compared byte for byte: users made
// with every kind of rule, refused rules, arity errors, and DRYRUN of
// each kind of denial.
var aclSubcommandCases = [][]string{
	{"ACL", "SETUSER", "alice", "on", ">pw", "~foo*", "%R~r*", "%W~w*", "&ch*", "+get", "+@hash", "-hset", "+config|get"},
	{"ACL", "SETUSER", "bob", "reset", "+@all", "-@dangerous", "~*", "allchannels"},
	{"ACL", "SETUSER", "carol", "on", "nopass", "-@all", "+@read", "-@keyspace", "+select|0", "~*"},
	{"ACL", "SETUSER", "dave", "reset", "on", ">a", ">b", "<a", "#" + aclHashA, "!" + aclHashA, "resetpass", ">p"},
	{"ACL", "SETUSER", "erin", "reset", "+@read", "+@write", "-@string", "sanitize-payload"},
	{"ACL", "SETUSER", "frank", "skip-sanitize-payload", "resetkeys", "allkeys", "resetchannels", "&a", "&b", "nocommands", "allcommands", "-get", "+get|x"},
	{"ACL", "SETUSER", "gina", "ON", "+@ALL", "-config|set", "-CLIENT", "%RW~x", "off"},
	// Refused rules: each names the rule and the reason, and changes nothing.
	{"ACL", "SETUSER", "alice", "allkeys", "~foo"},
	{"ACL", "SETUSER", "alice", "~*", "~foo"},
	{"ACL", "SETUSER", "alice", "allchannels", "&x"},
	{"ACL", "SETUSER", "e1", "%~x"},
	{"ACL", "SETUSER", "e1", "%Rx~y"},
	{"ACL", "SETUSER", "e1", "-select|0"},
	{"ACL", "SETUSER", "e1", "+config|get|x"},
	{"ACL", "SETUSER", "e1", "+select|0|x"},
	{"ACL", "SETUSER", "e1", "+@nosuch"},
	{"ACL", "SETUSER", "e1", "-@nosuch"},
	{"ACL", "SETUSER", "e1", "foo"},
	{"ACL", "SETUSER", "e1", "#abc"},
	{"ACL", "SETUSER", "e1", "#" + strings.ToUpper(aclHashA)},
	{"ACL", "SETUSER", "e1", "<nopw"},
	{"ACL", "SETUSER", "e1", "!" + aclHashA},
	{"ACL", "SETUSER", "e1", "+nosuchcmd"},
	{"ACL", "SETUSER", "e1", "+config|nosuch"},
	{"ACL", "SETUSER", "e1", "on", "+get", "bogus"},
	{"ACL", "GETUSER", "e1"},
	{"ACL", "SETUSER", "a b"},
	{"ACL", "SETUSER", "a\x00b"},
	{"ACL", "SETUSER", "", "on"},
	{"ACL", "GETUSER", ""},
	{"ACL", "DELUSER", ""},
	{"ACL", "GETUSER", "nosuch"},
	// Arity and unknown subcommands.
	{"ACL"},
	{"ACL", "NOSUCH"},
	{"ACL", "SETUSER"},
	{"ACL", "GETUSER"},
	{"ACL", "GETUSER", "a", "b"},
	{"ACL", "DELUSER"},
	{"ACL", "USERS", "x"},
	{"ACL", "LIST", "x"},
	{"ACL", "WHOAMI", "x"},
	{"ACL", "CAT", "a", "b"},
	{"ACL", "LOG", "1", "2"},
	{"ACL", "DRYRUN", "alice"},
	{"ACL", "HELP"},
	{"acl", "help", "x"},
	{"ACL", "WHOAMI"},
	{"ACL", "USERS"},
	{"ACL", "CAT", "nosuch"},
	{"ACL", "GENPASS", "0"},
	{"ACL", "GENPASS", "-1"},
	{"ACL", "GENPASS", "4097"},
	{"ACL", "GENPASS", "abc"},
	{"ACL", "DELUSER", "default"},
	{"ACL", "DELUSER", "nosuch", "default"},
	{"ACL", "LOG", "x"},
	{"ACL", "LOG", "-1"},
	{"ACL", "SAVE"},
	{"ACL", "LOAD"},
	{"ACL", "DRYRUN", "nouser", "get", "x"},
	{"ACL", "DRYRUN", "alice", "nocmd"},
	{"ACL", "DRYRUN", "alice", "set", "x"},
	{"ACL", "DRYRUN", "alice", "get", "foo1"},
	{"ACL", "DRYRUN", "alice", "get", "bar"},
	{"ACL", "DRYRUN", "alice", "set", "foo", "v"},
	{"ACL", "DRYRUN", "alice", "config", "get", "x"},
	{"ACL", "DRYRUN", "alice", "config", "set", "x", "y"},
	{"ACL", "DRYRUN", "alice", "hget", "r1", "f"},
	{"ACL", "DRYRUN", "alice", "hget", "w1", "f"},
	{"ACL", "DRYRUN", "alice", "hdel", "w1", "f"},
	{"ACL", "DRYRUN", "alice", "hincrby", "w1", "f", "1"},
	{"ACL", "DRYRUN", "bob", "publish", "x", "y"},
	{"ACL", "DRYRUN", "bob", "flushall"},
	{"ACL", "DRYRUN", "carol", "select", "0"},
	{"ACL", "DRYRUN", "carol", "select", "1"},
	{"ACL", "DRYRUN", "frank", "get", "x"},
	{"ACL", "DRYRUN", "frank", "get", "y"},
	{"ACL", "DRYRUN", "frank", "subscribe", "a", "c"},
	{"ACL", "DRYRUN", "gina", "client", "id"},
	{"ACL", "DRYRUN", "gina", "config", "set", "a", "b"},
	{"ACL", "DRYRUN", "gina", "config", "get", "a"},
}

func TestACLDifferentialSubcommands(t *testing.T) {
	t.Parallel()
	a := startACLPair(t)
	sameAll(t, a.Pair, aclSubcommandCases)
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "frank", "gina", "default"} {
		a.sameNorm(t, normUser, "ACL", "GETUSER", u)
	}
	a.sameNorm(t, normList, "ACL", "LIST")
	a.sameNorm(t, normCat, "ACL", "CAT")
	for _, cat := range []string{"keyspace", "read", "write", "string", "hash", "admin", "dangerous", "pubsub", "scripting", "connection", "fast", "slow"} {
		a.sameNorm(t, normCat, "ACL", "CAT", cat)
	}
	for _, bits := range []string{"", "1", "5", "128", "4096"} {
		args := []string{"ACL", "GENPASS"}
		if bits != "" {
			args = append(args, bits)
		}
		a.sameNorm(t, func(v any) any { return len(v.(string)) }, args...)
	}
	a.Same(t, "ACL", "DELUSER", "dave", "erin", "nosuch")
	a.sameNorm(t, normList, "ACL", "LIST")
	a.Same(t, "ACL", "USERS")
}

func TestACLDifferentialAuth(t *testing.T) {
	t.Parallel()
	a := startACLPair(t)
	sameAll(t, a.Pair, [][]string{
		{"AUTH", "x"}, // the default user has no password
		{"ACL", "SETUSER", "alice", "on", ">pw", "+@all", "~*"},
		{"ACL", "SETUSER", "off", "off", ">pw", "+@all", "~*"},
		{"AUTH", "alice", "wrong"},
		{"AUTH", "nouser", "x"},
		{"AUTH", "off", "pw"},
		{"HELLO", "2", "AUTH", "alice", "wrong"},
		{"AUTH", "a", "b", "c"},
		{"AUTH", "default", "anything"},
	})
	a.sameNorm(t, normLog, "ACL", "LOG")
	u := a.as(t, "alice", "pw")
	u.Same(t, "ACL", "WHOAMI")
	// With requirepass the default user has that password only.
	sameAll(t, a.Pair, [][]string{
		{"CONFIG", "SET", "requirepass", "secret"},
		{"ACL", "GETUSER", "default"},
		{"ACL", "LIST"},
	})
	fresh := &Pair{Q: DialRaw(t, a.QP.Addr), R: DialRaw(t, a.RP.Addr)}
	sameAll(t, fresh, [][]string{
		{"GET", "x"},
		{"ACL", "WHOAMI"},
		{"AUTH", "wrong"},
		{"AUTH", "secret"},
		{"ACL", "WHOAMI"},
		{"AUTH", "alice", "pw"},
		{"ACL", "WHOAMI"},
		{"RESET"},
		{"ACL", "WHOAMI"},
		{"CONFIG", "SET", "requirepass", ""},
	})
	sameAll(t, a.Pair, [][]string{{"ACL", "GETUSER", "default"}, {"ACL", "LOG", "RESET"}, {"ACL", "LOG"},
		{"CLIENT", "KILL", "USER", "nosuch"}, {"CLIENT", "KILL", "USER", "alice"}})
}

// aclAliceCases are alice's calls: key patterns read, write and both,
// a denied subcommand and channel, and MULTI with denials queued.
var aclAliceCases = [][]string{
	{"GET", "foo1"},
	{"GET", "bar"},
	{"SET", "foo2", "v"},
	{"SET", "bar", "v"},
	{"SET", "w1", "v"},        // write-only pattern: SET without GET only writes
	{"SET", "w1", "v", "GET"}, // with GET it reads too
	{"GET", "r1"},
	{"SET", "r1", "v"},
	{"HSET", "foo1", "a", "b"},
	{"HGET", "w1", "a"},
	{"HGET", "r1", "a"},
	{"HDEL", "w1", "a"},
	{"HINCRBY", "w1", "a", "1"},
	{"HINCRBY", "foo3", "a", "1"},
	{"CONFIG", "SET", "maxmemory", "1"},
	{"PUBLISH", "c", "x"},
	{"DEL", "foo1"},
	{"ACL", "WHOAMI"},
	{"MULTI"},
	{"GET", "foo1"},
	{"DEL", "foo1"},
	{"GET", "bar"},
	{"EXEC"},
	{"MULTI"},
	{"GET", "foo1"},
	{"SET", "foo1", "v2"},
	{"HINCRBY", "foo3", "a", "1"},
}

// aclScriptCases are a restricted user's scripts: redis.call and
// redis.pcall denied a command, a key and a channel, and EVAL's own keys.
var aclScriptCases = [][]string{
	{"EVAL", "return redis.call('set','k1','v')", "0"},
	{"EVAL", "return redis.call('get','zz')", "0"},
	{"EVAL", "return redis.call('get','k1')", "0"},
	{"EVAL", "return redis.pcall('set','k1','v')", "0"},
	{"EVAL", "local r = redis.pcall('get','zz'); return r['err']", "0"},
	{"EVAL", "return redis.call('publish','zz','v')", "0"},
	{"EVAL", "return 1", "1", "zz"},
	{"EVAL", "return 1", "1", "k2"},
	{"EVAL", "return redis.call('acl','whoami')", "0"},
}

// aclNumKeysCases name keys after a count, after a subcommand, or keys a
// command neither reads nor writes: each key is checked.
var aclNumKeysCases = [][]string{
	{"ZUNIONSTORE", "foo1", "2", "foo2", "bar"},
	{"ZUNIONSTORE", "bar", "2", "foo2", "foo3"},
	{"ZUNIONSTORE", "foo1", "2", "foo2", "foo3"},
	{"ZINTERSTORE", "foo1", "2", "foo2", "bar"},
	{"ZDIFFSTORE", "foo1", "2", "foo2", "bar"},
	{"ZUNION", "2", "foo1", "bar"},
	{"ZUNION", "2", "foo1", "foo2"},
	{"ZINTER", "2", "foo1", "bar"},
	{"ZDIFF", "2", "foo1", "bar"},
	{"ZINTERCARD", "2", "foo1", "bar"},
	{"SINTERCARD", "2", "foo1", "bar"},
	{"SINTERCARD", "2", "foo1", "foo2"},
	{"LMPOP", "2", "foo1", "bar", "LEFT"},
	{"LMPOP", "2", "foo1", "foo2", "LEFT"},
	{"ZMPOP", "2", "foo1", "bar", "MIN"},
	{"BLMPOP", "0.01", "2", "foo1", "bar", "LEFT"},
	{"BZMPOP", "0.01", "2", "foo1", "bar", "MIN"},
	{"MEMORY", "USAGE", "bar"},
	{"MEMORY", "USAGE", "foo9"},
	// Keys that are neither read nor written (EXISTS, TYPE, TTL) still
	// have to match a pattern.
	{"EXISTS", "bar"},
	{"EXISTS", "foo1", "foo2"},
	{"TYPE", "bar"},
	{"TTL", "bar"},
	{"DEL", "foo7", "bar"},
	{"RENAME", "foo1", "bar"},
}

func TestACLDifferentialNoPerm(t *testing.T) {
	t.Parallel()
	a := startACLPair(t)
	sameAll(t, a.Pair, [][]string{
		{"ACL", "SETUSER", "alice", "on", ">pw", "~foo*", "%R~r*", "%W~w*", "+get", "+@hash", "-hset", "+config|get", "+multi", "+exec", "+set"},
		{"ACL", "SETUSER", "pub", "on", ">pw", "&news.*", "+publish", "+subscribe", "+psubscribe", "+ping"},
		{"ACL", "SETUSER", "lua", "on", ">pw", "~k*", "+eval", "+evalsha", "+get", "&c*"},
		{"ACL", "SETUSER", "carol", "on", ">pw", "~*", "-@all", "+select|0", "+get"},
		{"ACL", "SETUSER", "zed", "on", ">pw", "~foo*", "+@sortedset", "+@list", "+@set", "+memory|usage", "+@keyspace"},
		{"SET", "foo1", "v"},
	})
	alice := a.as(t, "alice", "pw")
	sameAll(t, alice, aclAliceCases)
	// Rules changed between queueing and EXEC: EXEC checks again.
	a.Same(t, "ACL", "SETUSER", "alice", "-set", "resetkeys", "~foo3")
	alice.Same(t, "EXEC")
	alice.Same(t, "GET", "foo1")

	pub := a.as(t, "pub", "pw")
	sameAll(t, pub, [][]string{
		{"PUBLISH", "news.1", "x"},
		{"PUBLISH", "other", "x"},
		{"SUBSCRIBE", "other"},
		{"PSUBSCRIBE", "news*"},
		{"PSUBSCRIBE", "news.*"},
		{"PING"},
	})

	lua := a.as(t, "lua", "pw")
	sameAll(t, lua, aclScriptCases)

	zed := a.as(t, "zed", "pw")
	sameAll(t, zed, aclNumKeysCases)

	carol := a.as(t, "carol", "pw")
	sameAll(t, carol, [][]string{{"SELECT", "0"}, {"SELECT", "1"}, {"GET", "x"}, {"SET", "x", "y"}})

	a.sameNorm(t, normLog, "ACL", "LOG")
	a.sameNorm(t, normLog, "ACL", "LOG", "2")
	a.Same(t, "ACL", "LOG", "RESET")
	a.Same(t, "ACL", "LOG")

	// A deleted user's connections are closed.
	a.Same(t, "ACL", "DELUSER", "carol")
	for name, addr := range map[string]string{"qlessd": a.QP.Addr, "redis": a.RP.Addr} {
		c := redis.NewClient(&redis.Options{Addr: addr, Username: "pub", Password: "pw", MaxRetries: -1, PoolSize: 1})
		if err := c.Ping(context.Background()).Err(); err != nil {
			t.Fatalf("%s: PING as pub: %v", name, err)
		}
		a.Same(t, "ACL", "DELUSER", "pub")
		deadline := time.Now().Add(10 * time.Second)
		for c.Ping(context.Background()).Err() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s: pub's connection still served after ACL DELUSER", name)
			}
		}
		c.Close()
		a.Same(t, "ACL", "SETUSER", "pub", "on", ">pw", "+ping")
	}
}

// TestACLCategoriesLikeRedis: every command qlessd shares with Redis 7.0
// has Redis's ACL categories in COMMAND INFO, and ACL CAT lists Redis's
// categories in Redis's order before qlessd's two.
func TestACLCategoriesLikeRedis(t *testing.T) {
	t.Parallel()
	a := startACLPair(t)
	names, ok := doAny(a.q, "COMMAND", "LIST").([]any)
	if !ok {
		t.Fatal("COMMAND LIST")
	}
	checked := 0
	for _, n := range names {
		name := n.(string)
		ri, _ := doAny(a.r, "COMMAND", "INFO", name).([]any)
		qi, _ := doAny(a.q, "COMMAND", "INFO", name).([]any)
		if len(ri) != 1 || ri[0] == nil {
			continue // qlessd's own
		}
		rc, qc := ri[0].([]any)[6], qi[0].([]any)[6]
		if !reflect.DeepEqual(rc, qc) {
			t.Errorf("COMMAND INFO %s categories: qlessd %v, redis %v", name, qc, rc)
		}
		checked++
	}
	if checked < 150 {
		t.Errorf("only %d commands compared", checked)
	}
	qcats, rcats := doAny(a.q, "ACL", "CAT").([]any), doAny(a.r, "ACL", "CAT").([]any)
	want := append(append([]any(nil), rcats...), "qless-read", "qless-write")
	if !reflect.DeepEqual(qcats, want) {
		t.Errorf("ACL CAT: qlessd %v, want %v", qcats, want)
	}
}
