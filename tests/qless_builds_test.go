//go:build qlessbuilds

// Opt-in:
//
//	cd tests && go test -tags qlessbuilds -run TestClientBuilds -count=1 -timeout 60m .
//
// qlessd serves the qless.lua builds that client libraries ship (see
// qless.Profiles) natively. This test proves, call for call, that each
// build gives on qlessd exactly the replies, errors, pub/sub events and
// keyspace that the same build gives on redis-server 7.0.
//
// Environment:
//
//	QLESS_BUILDS_CALLS      random calls per build (default 20000)
//	QLESS_BUILDS_SEED       seed of the random calls (default: the clock)
//	QLESS_BUILDS_KEY_ORDER  "loose" ignores JSON object key order
//	QLESS_CORE_GIT, QLESS_GEM_GIT  git mirrors the scripts are built from
package tests

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestClientBuilds(t *testing.T) {
	t.Parallel()
	builds := clientBuilds(t)
	files := conformanceFiles(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("QLESS_BUILDS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("QLESS_BUILDS_SEED: %v", err)
		}
	}
	calls := 20000
	if s := os.Getenv("QLESS_BUILDS_CALLS"); s != "" {
		calls, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d (replay with QLESS_BUILDS_SEED=%d), %d random calls per build, key order loose: %v",
		seed, seed, calls, looseKeyOrder)
	for _, b := range builds {
		t.Run(b.Build, func(t *testing.T) {
			p := &buildPair{
				q: startBuildSide(t, StartQlessd(t, "").Addr, b.Stock, b.SHA),
				r: startBuildSide(t, StartRedis(t).Addr, b.Redis, b.RedisSHA),
			}
			start := time.Now()
			t.Run("transcripts", func(t *testing.T) { p.transcripts(t, files) })
			partA := time.Since(start)
			t.Run("random", func(t *testing.T) { p.random(t, seed, calls) })
			t.Logf("build %s: transcripts %v, random calls %v", b.Build,
				partA.Round(time.Millisecond), (time.Since(start) - partA).Round(time.Millisecond))
		})
	}
}
