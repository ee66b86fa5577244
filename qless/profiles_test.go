package qless

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/scripts"
)

// A build served natively behaves as its switches say, on the fast paths
// and in the library alike: the builds' scripts cannot be committed, so
// stand-ins (our printed script under another SHA) carry the switches.
func TestProfileSwitches(t *testing.T) {
	for _, tc := range []struct {
		name     string
		switches int
	}{{"13cf415-like", 0}, {"a72cf28-like", switchHeartbeatWorker}, {"b3f41c8-like", switchesAll}} {
		for _, fast := range []bool{true, false} {
			s := newDiffSide(t, fast)
			sha := s.aliasStandIn(t, tc.switches)
			call := func(args ...string) (string, []commands.Message) {
				v, pub := s.do(t, append([]string{"evalsha", sha, "0"}, args...)...)
				return v.Str, pub
			}
			call("put", "100", "me", "q", "j1", "K", "{}", "0", "retries", "0")
			call("track", "100", "track", "j1")
			call("pop", "101", "q", "w1", "1")
			call("heartbeat", "105", "j1", "w1")
			score, _ := s.do(t, "zscore", "ql:workers", "w1")
			want := "101"
			if tc.switches&switchHeartbeatWorker != 0 {
				want = "105"
			}
			if score.Str != want {
				t.Errorf("%s fast=%v: ql:workers w1 scored %q after heartbeat, want %s", tc.name, fast, score.Str, want)
			}
			_, pub := call("retry", "106", "j1", "q", "w1")
			failed := false
			for _, m := range pub {
				failed = failed || m.Channel == "ql:failed"
			}
			if failed != (tc.switches&switchRetryFailedEvent != 0) {
				t.Errorf("%s fast=%v: retry exhausting a tracked job published ql:failed: %v", tc.name, fast, failed)
			}
		}
	}
}

// An error is the script's own to raise: the call goes back to it before
// anything was written, and nothing is phrased late.
func TestProfileHandsErrorsBack(t *testing.T) {
	s := newDiffSide(t, true)
	sha := s.aliasStandIn(t, switchesAll)
	v, _ := s.do(t, "evalsha", sha, "0", "complete", "1", "nojob", "w", "q", "{}")
	// The script's own framing, which the library never writes.
	if want := "ERR Complete(): Job nojob does not exist script: " + sha + ", on @user_script:"; !strings.HasPrefix(v.Str, want) {
		t.Errorf("complete of an unknown job replied %q, want %q...", v.Str, want)
	}
	st := s.standIn
	if st.HandedBack.Load() != 1 || st.Late.Load() != 0 {
		t.Errorf("handed back %d, late %d; want 1 and 0", st.HandedBack.Load(), st.Late.Load())
	}
}

// aliasStandIn loads a stand-in for a client's build with the given
// switches and returns its SHA1.
func (s *diffSide) aliasStandIn(t *testing.T, switches int) string {
	t.Helper()
	body := Script() + "-- stand-in for a client's build\n"
	sha := scripts.SHA1([]byte(body))
	s.standIn = s.engine.AliasStock(sha, libName, switches, aliasFast(switches, s.engine), phraseLate)
	if v, _ := s.do(t, "script", "load", body); v.Str != sha {
		t.Fatalf("SCRIPT LOAD replied %v", v)
	}
	return sha
}
