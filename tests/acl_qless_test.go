package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/qlessd/qlessd/qless"
)

// TestACLQlessReadUser: a user given +@qless-read (at the root or in a
// selector) reads qless (get, queues,
// peek, tag get and top, track) and is refused every QLESS function that
// writes, and cannot write through EVAL or through EVALSHA of qless.lua.
func TestACLQlessReadUser(t *testing.T) {
	t.Parallel()
	p := StartQlessd(t, "")
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: p.Addr})
	defer admin.Close()
	do := func(c *redis.Client, args ...any) (any, error) { return c.Do(ctx, args...).Result() }
	for _, call := range [][]any{
		{"QLESS", "put", "now", "w", "q", "j1", "K", "{}", "0", "tags", `["t"]`},
		{"QLESS", "put", "now", "w", "q", "j2", "K", "{}", "0"},
		{"QLESS", "pop", "now", "q", "w", "1"},
		{"ACL", "SETUSER", "reader", "on", ">pw", "+@qless-read"},
		{"ACL", "SETUSER", "scripter", "on", ">pw", "+@qless-read", "+eval", "+evalsha", "~*"},
		{"ACL", "SETUSER", "nowrite", "on", ">pw", "+@all", "-@qless-write", "~*", "&*"},
		{"ACL", "SETUSER", "tagger", "on", ">pw", "+qless|tag.get"},
		// The same rights through a selector.
		{"ACL", "SETUSER", "selreader", "on", ">pw", "(+@qless-read)"},
	} {
		if _, err := do(admin, call...); err != nil {
			t.Fatalf("%v: %v", call, err)
		}
	}
	as := func(user string) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: p.Addr, Username: user, Password: "pw"})
		t.Cleanup(func() { c.Close() })
		return c
	}
	reader, scripter, nowrite, tagger := as("reader"), as("scripter"), as("nowrite"), as("tagger")

	for _, c := range []*redis.Client{reader, nowrite, as("selreader")} {
		for _, call := range [][]any{
			{"QLESS", "get", "now", "j1"},
			{"QLESS", "queues", "now"},
			{"QLESS", "peek", "now", "q", "5"},
			{"QLESS", "tag", "now", "get", "t"},
			{"QLESS", "tag", "now", "top"},
			{"QLESS", "track", "now"},
			{"QLESS", "jobs", "now", "running", "q"},
			{"QLESS", "failed", "now"},
			{"QLESS", "workers", "now"},
			{"QLESS", "config.get", "now"},
		} {
			if _, err := do(c, call...); err != nil && err != redis.Nil {
				t.Errorf("%v: %v", call, err)
			}
		}
		for fn, call := range map[string][]any{
			"qless|put":    {"QLESS", "put", "now", "w", "q", "j3", "K", "{}", "0"},
			"qless|cancel": {"QLESS", "cancel", "now", "j2"},
			"qless|retry":  {"QLESS", "retry", "now", "j1", "q", "w", "0"},
			"qless|pop":    {"QLESS", "pop", "now", "q", "w", "1"},
			"qless|tag":    {"QLESS", "tag", "now", "add", "j2", "x"},
			"qless|track":  {"QLESS", "track", "now", "track", "j2"},
		} {
			want := "NOPERM this user has no permissions to run the '" + fn + "' command"
			if _, err := do(c, call...); err == nil || err.Error() != want {
				t.Errorf("%v: got %v, want %q", call, err, want)
			}
		}
	}
	if _, err := do(reader, "EVAL", "return redis.call('set','x','y')", "0"); err == nil ||
		err.Error() != "NOPERM this user has no permissions to run the 'eval' command" {
		t.Errorf("EVAL as reader: %v", err)
	}
	checkScriptWrites(t, admin, scripter)
	if v, _ := do(admin, "QLESS", "get", "now", "j2"); v == nil {
		t.Errorf("j2 gone after refused cancels")
	}
	if _, err := do(tagger, "QLESS", "tag", "now", "get", "t"); err != nil {
		t.Errorf("tag get as tagger: %v", err)
	}
	if _, err := do(tagger, "QLESS", "tag", "now", "remove", "j1", "t"); err == nil {
		t.Errorf("tag remove as tagger ran")
	}
	v, err := do(admin, "ACL", "DRYRUN", "reader", "qless", "put", "now", "w", "q", "j3", "K", "{}", "0")
	if err != nil || v != "This user has no permissions to run the 'qless|put' command" {
		t.Errorf("DRYRUN reader qless put: %v %v", v, err)
	}
	cats, _ := do(admin, "ACL", "CAT", "qless-read")
	if list := fmtAny(cats) + " "; !strings.Contains(list, " qless|get ") || strings.Contains(list, " qless|put ") {
		t.Errorf("ACL CAT qless-read: %v", cats)
	}
}

func fmtAny(v any) string {
	list, _ := v.([]any)
	var b strings.Builder
	for _, x := range list {
		b.WriteString(" " + x.(string))
	}
	return b.String()
}

// checkScriptWrites: a user with EVAL and EVALSHA but only +@qless-read
// cannot write through a script, nor through qless.lua sent with EVALSHA.
func checkScriptWrites(t *testing.T, admin, scripter *redis.Client) {
	t.Helper()
	ctx := context.Background()
	do := func(c *redis.Client, args ...any) (any, error) { return c.Do(ctx, args...).Result() }
	if _, err := do(scripter, "EVAL", "return redis.call('set','x','y')", "0"); err == nil ||
		!strings.HasPrefix(err.Error(), "ERR The user executing the script can't run this command or subcommand") {
		t.Errorf("EVAL set as scripter: %v", err)
	}
	// qless.lua sent as qless clients send it runs Lua's redis.call, each
	// checked: the put is refused and no job is made.
	if _, err := do(admin, "SCRIPT", "LOAD", qless.Script()); err != nil {
		t.Fatal(err)
	}
	_, err := do(scripter, "EVALSHA", qless.SHA(), "0", "put", "1700000000", "w", "q", "j4", "K", "{}", "0")
	if err == nil || !strings.Contains(err.Error(), "The user executing the script can't") {
		t.Errorf("EVALSHA qless put as scripter: %v", err)
	}
	if v, err := do(admin, "QLESS", "get", "now", "j4"); err != redis.Nil {
		t.Errorf("j4 exists after a refused put: %v %v", v, err)
	}
}
