package luatable_test

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
	"github.com/qlessd/qlessd/scripts/luatable"
)

// list renders a table's keys in pairs order, each as "len:key", so any
// bytes survive and the reply compares as one string.
const list = `local function list(t) local o = {} for k in pairs(t) do o[#o + 1] = #k .. ':' .. k end return table.concat(o) end
`

// ARGV holds each case as its key count followed by its keys.
const assignScript = list + `local out, i = {}, 1
while i <= #ARGV do
  local n, t = tonumber(ARGV[i]), {}
  for j = 1, n do t[ARGV[i + j]] = j end
  out[#out + 1] = list(t)
  i = i + n + 1
end
return out`

// ARGV holds one JSON object per case.
const decodeScript = list + `local out = {}
for i = 1, #ARGV do out[i] = list(cjson.decode(ARGV[i])) end
return out`

// Constructor keys have to be in the script text, so each batch is its
// own script. The first fields(n) keys of a case go in the constructor
// and the rest are assigned after it, so the table grows from its hint.
func constructorScript(cases [][]string, fields func(n int) int) string {
	var b strings.Builder
	b.WriteString(list + "local out, t = {}\n")
	for i, keys := range cases {
		m := fields(len(keys))
		b.WriteString("t = {")
		for j, k := range keys[:m] {
			fmt.Fprintf(&b, "[%s]=%d,", luaQuote(k), j)
		}
		b.WriteString("}\n")
		for j, k := range keys[m:] {
			fmt.Fprintf(&b, "t[%s]=%d\n", luaQuote(k), j)
		}
		fmt.Fprintf(&b, "out[%d] = list(t)\n", i+1)
	}
	b.WriteString("return out")
	return b.String()
}

func jsonObject(rng *rand.Rand, keys []string) string {
	values := []string{"1", "null", `{"x":1,"y":[2]}`, "[1,2]", `"s"`, "true", "-0.5"}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonQuote(rng, k) + ":" + values[rng.Intn(len(values))])
	}
	b.WriteByte('}')
	return b.String()
}

func listed(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(strconv.Itoa(len(k)) + ":" + k)
	}
	return b.String()
}

// replyStrings parses an array of bulk strings as difftest renders it.
func replyStrings(t *testing.T, reply string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(reply, "[")
	var out []string
	for ok && len(rest) > 0 && rest[0] != ']' {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			break
		}
		s, _ := strconv.Unquote(q)
		out = append(out, s)
		rest = strings.TrimPrefix(rest[len(q):], " ")
	}
	if !ok || rest != "]" {
		t.Fatalf("unexpected reply %.300q", reply)
	}
	return out
}

type diffMode struct {
	name string
	hint func(keys []string) int
	eval func(t *testing.T, r *difftest.Redis, rng *rand.Rand, cases [][]string) string
}

var diffModes = []diffMode{
	{"assign", func([]string) int { return 0 }, func(t *testing.T, r *difftest.Redis, _ *rand.Rand, cases [][]string) string {
		args := []string{"EVAL", assignScript, "0"}
		for _, keys := range cases {
			args = append(append(args, strconv.Itoa(len(keys))), keys...)
		}
		return r.Do(t, args...)
	}},
	constructorMode("constructor", func(n int) int { return n }),
	constructorMode("constructor then assign", func(n int) int { return n / 2 }),
	{"decode", func([]string) int { return 0 }, func(t *testing.T, r *difftest.Redis, rng *rand.Rand, cases [][]string) string {
		args := []string{"EVAL", decodeScript, "0"}
		for _, keys := range cases {
			args = append(args, jsonObject(rng, keys))
		}
		return r.Do(t, args...)
	}},
}

func constructorMode(name string, fields func(n int) int) diffMode {
	return diffMode{name, func(keys []string) int { return luatable.ConstructorHint(fields(len(keys))) },
		func(t *testing.T, r *difftest.Redis, _ *rand.Rand, cases [][]string) string {
			return r.Do(t, "EVAL", constructorScript(cases, fields), "0")
		}}
}

// TestDifferentialOrder builds thousands of random tables in redis-server
// by assignment, by constructor and by cjson.decode, and checks that
// Order predicts the order pairs visits their keys in.
func TestDifferentialOrder(t *testing.T) {
	const batches, batchSize = 40, 200
	r := difftest.StartRedis(t)
	rng := rand.New(rand.NewSource(1))
	total, failed := 0, 0
	for _, mode := range diffModes {
		for b := 0; b < batches; b++ {
			cases := make([][]string, batchSize)
			for i := range cases {
				cases[i] = newKeySource(rng).keys(1 + rng.Intn(40))
			}
			got := replyStrings(t, mode.eval(t, r, rng, cases))
			if len(got) != len(cases) {
				t.Fatalf("%s: %d replies for %d cases", mode.name, len(got), len(cases))
			}
			for i, keys := range cases {
				total++
				want := listed(keysInOrder(keys, luatable.Order(mode.hint(keys), keys, nil)))
				if got[i] != want && failed < 10 {
					t.Errorf("%s of %q:\n redis: %q\n Order: %q", mode.name, keys, got[i], want)
				}
				if got[i] != want {
					failed++
				}
			}
		}
		r.Do(t, "SCRIPT", "FLUSH")
	}
	t.Logf("%d/%d random tables iterate as Order predicts", total-failed, total)
}

func TestDifferentialFixed(t *testing.T) {
	r := difftest.StartRedis(t)
	all := func(n int) int { return n }
	if job := replyStrings(t, r.Do(t, "EVAL", constructorScript([][]string{jobKeys}, all), "0")); job[0] != listed(jobOrder) {
		t.Errorf("job constructor: redis %q, want %q", job[0], listed(jobOrder))
	}
	in, want := `{"b":1,"a":2,"zz":{"y":1,"x":2},"c":3}`, `{"a":2,"zz":{"y":1,"x":2},"c":3,"b":1}`
	if got := r.Do(t, "EVAL", "return cjson.encode(cjson.decode(ARGV[1]))", "0", in); got != strconv.Quote(want) {
		t.Errorf("decode round trip: redis %s, want %q", got, want)
	}
}
