package tests

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/qless"
)

// qlessd's printed script runs the same Lua library on Redis that qlessd
// serves natively, where Go helpers work out the order Redis's Lua gives
// a table's keys (qless/natives.go, json_order.go). On Redis real Lua
// places the keys, so byte-for-byte agreement (key order, numbers, error
// framing and lines) checks those helpers against Lua 5.1 itself: on the
// transcripts and on generated calls (a fixed seed, so a failure replays;
// 1000 of them in make test, 6000 in make soak).
func TestPrintedScriptMatchesRedisByteForByte(t *testing.T) {
	t.Parallel()
	script, sha := qless.Script(), qless.SHA()
	// The transcripts and the random calls side by side, each on a pair
	// of servers of its own.
	pair := func(t *testing.T) *buildPair {
		return &buildPair{
			q: startBuildSide(t, StartQlessd(t, "").Addr, script, sha),
			r: startBuildSide(t, StartRedis(t).Addr, script, sha),
		}
	}
	t.Run("transcripts", func(t *testing.T) {
		t.Parallel()
		// Half the transcripts each, the longest part of the test.
		files := conformanceFiles(t)
		for i, part := range [][]string{files[:len(files)/2], files[len(files)/2:]} {
			t.Run(fmt.Sprintf("part%d", i+1), func(t *testing.T) { t.Parallel(); pair(t).transcripts(t, part) })
		}
	})
	t.Run("random", func(t *testing.T) { t.Parallel(); pair(t).random(t, 20261127, soakOr(1000, 6000)) })
}
