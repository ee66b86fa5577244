package tests

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/qlessd/qlessd/qless"
	"github.com/redis/go-redis/v9"
)

// TestQlessInterop drives one job's life through alternating entry points on
// one qlessd: the native QLESS command and EVALSHA of the printed script, as
// a native producer and a client with its own qless.lua would share a server.
func TestQlessInterop(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer rdb.Close()
	sha, err := rdb.ScriptLoad(ctx, qless.Script()).Result()
	if err != nil || sha != qless.SHA() {
		t.Fatalf("SCRIPT LOAD = %q, %v; want %s", sha, err, qless.SHA())
	}
	native := func(fn, now string, args ...any) (any, error) {
		return rdb.Do(ctx, append([]any{"QLESS", fn, now}, args...)...).Result()
	}
	script := func(fn, now string, args ...any) (any, error) {
		return rdb.EvalSha(ctx, sha, nil, append([]any{fn, now}, args...)...).Result()
	}
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	state := func(call func(string, string, ...any) (any, error), jid string) map[string]any {
		t.Helper()
		var job map[string]any
		if err := json.Unmarshal([]byte(must(call("get", "1700000100", jid)).(string)), &job); err != nil {
			t.Fatal(err)
		}
		return job
	}

	// Put natively, work it through the script.
	must(native("put", "1700000000", "w1", "q", "a", "Klass", `{"n":1}`, "0", "tags", `["red"]`))
	popped := must(script("pop", "1700000001", "q", "w1", "1")).(string)
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(popped), &jobs); err != nil || len(jobs) != 1 || jobs[0]["jid"] != "a" {
		t.Fatalf("script pop of a natively put job: %s (%v)", popped, err)
	}
	must(native("heartbeat", "1700000002", "a", "w1", `{"n":2}`))
	if got := must(script("complete", "1700000003", "a", "w1", "q", `{"n":3}`)); got != "complete" {
		t.Fatalf("complete = %v", got)
	}
	if j := state(native, "a"); j["state"] != "complete" || j["data"] != `{"n":3}` {
		t.Fatalf("job a after script complete: %v", j)
	}

	// Put through the script, fail natively, unfail through the script, complete natively.
	must(script("put", "1700000010", "w1", "q", "b", "Klass", "{}", "0"))
	must(native("pop", "1700000011", "q", "w2", "1"))
	must(native("fail", "1700000012", "b", "w2", "grp", "boom", "{}"))
	if j := state(script, "b"); j["state"] != "failed" {
		t.Fatalf("job b after native fail: %v", j)
	}
	if n := must(script("unfail", "1700000013", "q", "grp", "10")); n != int64(1) {
		t.Fatalf("unfail = %v", n)
	}
	must(script("pop", "1700000014", "q", "w3", "1"))
	must(native("complete", "1700000015", "b", "w3", "q", "{}"))
	if j := state(script, "b"); j["state"] != "complete" || j["worker"] != "" {
		t.Fatalf("job b after native complete: %v", j)
	}

	// Both entry points see the same queue counts and tags, with keys in
	// the order Redis's Lua gives qless's tables.
	if a, b := must(native("queues", "1700000020")), must(script("queues", "1700000020")); a != b {
		t.Fatalf("queues differ: native %v, script %v", a, b)
	}
	if got := must(script("tag", "1700000021", "get", "red", "0", "10")).(string); got != `{"jobs":["a"],"total":1}` {
		t.Fatalf("tag get red = %s", got)
	}
}
