//go:build qlessbuilds

package tests

import (
	"strings"
	"testing"
)

// A stock build failing part way, after it has written (a recurring job
// whose tags are JSON but no array, a grace period that is no number),
// answers with the build's own line, once, in Lua 5.1's words, as the
// same build does on redis-server 7.0; the keyspace left is the same.
func TestStockLateErrorsNameTheBuildsLine(t *testing.T) {
	t.Parallel()
	scenarios := map[string][][]string{
		"recur tags not an array": {
			{"recur", "100", "q", "r1", "K", "{}", "interval", "60", "0", "tags", `"x"`},
			{"pop", "200", "q", "w", "5"},
			{"recur", "210", "q", "r2", "K", "{}", "interval", "60", "0", "tags", `5`},
			{"unrecur", "220", "r1"},
			{"pop", "230", "q", "w", "5"},
		},
		"recur tag not a string": {
			{"recur", "100", "q", "r1", "K", "{}", "interval", "60", "0", "tags", `["a",["b"]]`},
			{"pop", "200", "q", "w", "5"},
		},
		"grace period not a number": {
			{"put", "100", "w", "q", "j1", "K", "{}", "0"},
			{"pop", "110", "q", "w", "1"},
			{"config.set", "120", "grace-period", "soon"},
			{"pop", "100000", "q", "w2", "1"},
		},
	}
	for _, b := range clientBuilds(t) {
		t.Run(b.Build, func(t *testing.T) {
			p := &buildPair{
				q: startBuildSide(t, StartQlessd(t, "").Addr, b.Stock, b.SHA),
				r: startBuildSide(t, StartRedis(t).Addr, b.Redis, b.RedisSHA),
			}
			for name, calls := range scenarios {
				p.flush(t)
				errs := 0
				for _, c := range calls {
					q, _, d := p.step(t, c[0], c[1], c[2:])
					if d != "" {
						t.Fatalf("%s: %q: %s", name, c, d)
					}
					if q.reply.Kind == '-' {
						errs++
						if strings.Count(q.reply.Str, "user_script:") != 2 || strings.Contains(q.reply.Str, "user_script:1:") {
							t.Errorf("%s: %q: %s", name, c, q.reply.Str)
						}
					}
				}
				if errs == 0 {
					t.Errorf("%s: no call failed", name)
				}
				if d := p.diffKeyspace(t); d != "" {
					t.Fatalf("%s: keyspace: %s", name, d)
				}
			}
		})
	}
}
