package qless

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// startRedis starts a redis-server 7.0 and connects to it.
func startRedis(t *testing.T) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { c.Close() })
	return c
}

// What qless's Lua does with a history entry for a job object, and with
// job data it decodes and encodes again, as Redis's Lua does it.
const (
	redisHistoryDict = `local value = cjson.decode(ARGV[1]) local dict = value[3] or {} ` +
		`dict['when'] = value[1] dict['what'] = value[2] return cjson.encode(dict)`
	redisReencode = `return cjson.encode(cjson.decode(ARGV[1]))`
)

// appendHistoryDict and normalizeJSON give Redis's bytes, key order
// included, whenever they answer.
func TestJSONOrderMatchesRedis(t *testing.T) {
	c := startRedis(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(1))
	answered := [2]int{}
	const n = 3000
	for i := 0; i < n; i++ {
		details := orderedJSON(rng, 0)
		entry := fmt.Sprintf(`[%d,"%s",%s]`, 1700000000+rng.Intn(1e6), randomKey(rng), details)
		if rng.Intn(8) == 0 {
			entry = fmt.Sprintf(`[%d,"done"]`, 1700000000+rng.Intn(1e6))
		}
		if got, ok := appendHistoryDict(nil, entry); ok {
			answered[0]++
			want, err := c.Eval(ctx, redisHistoryDict, nil, entry).Text()
			if err != nil || string(got) != want {
				t.Fatalf("history entry %s:\n  ours  %s\n  redis %s (%v)", entry, got, want, err)
			}
		}
		if got, ok := normalizeJSON(nil, details); ok {
			answered[1]++
			want, err := c.Eval(ctx, redisReencode, nil, details).Text()
			if err != nil || string(got) != want {
				t.Fatalf("data %s:\n  ours  %s\n  redis %s (%v)", details, got, want, err)
			}
		}
	}
	// Most of them must take the Go path, or this tests little.
	if answered[0] < n*7/10 || answered[1] < n*7/10 {
		t.Errorf("answered %d history entries and %d data of %d", answered[0], answered[1], n)
	}
}

var jsonKeys = []string{"q", "worker", "group", "when", "what", "jid", "id", "name", "a", "b", "zz",
	"long_key_name_over_thirty_two_bytes_long", "é", "k1", "k2", "path", "n", "1", "2"}

func randomKey(rng *rand.Rand) string { return jsonKeys[rng.Intn(len(jsonKeys))] }

// orderedJSON is an object, a list or (nested) a scalar, with repeated
// keys, escapes and numbers cjson writes differently.
func orderedJSON(rng *rand.Rand, depth int) string {
	switch k := rng.Intn(10); {
	case depth > 2 || (depth > 0 && k < 4):
		return []string{`1`, `-2.5`, `1e3`, `0.1`, `12345678901234567`, `true`, `false`, `null`,
			`"x"`, `"a\/b"`, `"line\nbreak"`, `"\u00e9\ud83d\ude00"`, `"quote \" here"`}[rng.Intn(13)]
	case k < 7:
		var b strings.Builder
		b.WriteByte('{')
		for i, m := 0, rng.Intn(9); i < m; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", randomKey(rng), orderedJSON(rng, depth+1))
		}
		return b.String() + "}"
	default:
		var b strings.Builder
		b.WriteByte('[')
		for i, m := 0, rng.Intn(4); i < m; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(orderedJSON(rng, depth+1))
		}
		return b.String() + "]"
	}
}
