package tests

import (
	"testing"

	"github.com/qlessd/qlessd/qless"
)

// EVALSHA of the printed qless script runs the preloaded library on qlessd;
// its replies and errors, positions included, must stay those of the
// script run by redis-server, and SCRIPT FLUSH must still forget it.
func TestPrintedScriptRunsAsOnRedis(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sha := p.Same(t, "SCRIPT", "LOAD", qless.Script())
	if sha != "$40\r\n"+qless.SHA()+"\r\n" {
		t.Fatalf("SCRIPT LOAD replied %q", sha)
	}
	sha = qless.SHA()
	p.Same(t, "EVALSHA", sha, "0")
	p.Same(t, "EVALSHA", sha, "1", "k", "put", "1", "w", "q", "j", "k", "{}", "0")
	p.Same(t, "EVALSHA", sha, "0", "nosuch", "1")
	p.Same(t, "EVALSHA", sha, "0", "put", "1", "w", "q", "j", "k", "notjson", "0")
	p.Same(t, "EVALSHA", sha, "0", "put", "1", "w", "q", "j", "k", "{}", "0")
	p.Same(t, "EVALSHA", sha, "0", "heartbeat", "2", "j", "w")
	p.Same(t, "EVALSHA", sha, "0", "heartbeat", "2", "j")
	p.Same(t, "EVALSHA", sha, "0", "fail", "3", "nojid", "w", "grp", "msg")
	p.Same(t, "EVAL", qless.Script(), "0", "length", "4", "q")
	p.Same(t, "SCRIPT", "FLUSH")
	p.Same(t, "EVALSHA", sha, "0", "length", "4", "q")
}
