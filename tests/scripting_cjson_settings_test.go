package tests

import (
	"strings"
	"testing"
)

// A script's cjson settings (encode_number_precision and the others) last
// for that script only: neither QLESS's replies nor the next script's
// encoding change after a script set them. Redis keeps them in its one Lua
// VM until SCRIPT FLUSH; qlessd's scripts run on a pool of interpreters, so
// keeping them would make a later script's output depend on which one it
// got (README, Lua differences).
func TestScriptingCjsonSettingsLastOneScript(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	if got := c.Do(t, "QLESS", "put", "1763790000.123456", "w", "q", "j1", "K", `{"a":[[[1]]]}`, "0"); got != "$2\r\nj1\r\n" {
		t.Fatalf("put: %q", got)
	}
	job := c.Do(t, "QLESS", "get", "1763790001", "j1")
	if !strings.Contains(job, `"when":1763790000,`) {
		t.Fatalf("get: %q", job)
	}
	const probe = "return cjson.encode({1/3, {{{}}}})"
	encoded := c.Do(t, "EVAL", probe, "0")
	if encoded != "$25\r\n[0.33333333333333,[[{}]]]\r\n" {
		t.Fatalf("%s: %q", probe, encoded)
	}
	for _, set := range []string{"cjson.encode_number_precision(3)", "cjson.encode_max_depth(2)",
		"cjson.decode_max_depth(1)", "cjson.encode_invalid_numbers(true)", "cjson.encode_sparse_array(true, 1, 1)"} {
		if got := c.Do(t, "EVAL", set+" return 1", "0"); got != ":1\r\n" {
			t.Fatalf("%s: %q", set, got)
		}
		if got := c.Do(t, "QLESS", "get", "1763790001", "j1"); got != job {
			t.Errorf("QLESS get after %s:\n got %q\nwant %q", set, got, job)
		}
		if got := c.Do(t, "EVAL", probe, "0"); got != encoded {
			t.Errorf("%s after %s: %q, want %q", probe, set, got, encoded)
		}
	}
}
