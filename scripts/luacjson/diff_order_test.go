package luacjson_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

var orderKeys = []string{"jid", "klass", "state", "queue", "worker", "event", "when", "what", "q", "data", "tags",
	"history", "failure", "expires", "priority", "retries", "remaining", "tracked", "dependents", "dependencies",
	"spawned_from_jid", "throttles", "1", "2", "10", "0", "-1", "1.5", "", " ", "é", "ключ", "😀", "a/b", `q"t`,
	"back\\slash", "nul\x00key", "tab\tkey", "\u2028", "a-rather-long-key-that-is-longer-than-thirty-two-bytes"}

var keyRunes = []rune("abcxyzéßж中😀_")

// orderDoc builds random JSON documents whose objects have many keys,
// repeated keys (sometimes spelled differently) and non-ASCII keys.
type orderDoc struct {
	rng *rand.Rand
	b   strings.Builder
}

func (g *orderDoc) key(seen []string) string {
	rng := g.rng
	switch c := rng.Intn(10); {
	case c < 2 && len(seen) > 0:
		return seen[rng.Intn(len(seen))]
	case c < 6:
		return orderKeys[rng.Intn(len(orderKeys))]
	case c < 8:
		return fmt.Sprintf("%c%d", 'a'+rng.Intn(26), rng.Intn(100))
	default:
		var k []rune
		for n := 1 + rng.Intn(6); n > 0; n-- {
			k = append(k, keyRunes[rng.Intn(len(keyRunes))])
		}
		return string(k)
	}
}

// quote writes a JSON string, each non-ASCII rune raw or as a \u escape
// (a surrogate pair above U+FFFF) at random.
func (g *orderDoc) quote(s string) {
	g.b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			g.b.WriteByte('\\')
			g.b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&g.b, `\u%04x`, r)
		case r >= 0x80 && g.rng.Intn(2) == 0:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&g.b, `\u%04x\u%04X`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&g.b, `\u%04x`, r)
			}
		default:
			g.b.WriteRune(r)
		}
	}
	g.b.WriteByte('"')
}

func (g *orderDoc) object(n, depth int) {
	g.b.WriteByte('{')
	var seen []string
	for i := 0; i < n; i++ {
		if i > 0 {
			g.b.WriteByte(',')
		}
		k := g.key(seen)
		seen = append(seen, k)
		g.quote(k)
		g.b.WriteByte(':')
		g.value(depth + 1)
	}
	g.b.WriteByte('}')
}

func (g *orderDoc) value(depth int) {
	rng := g.rng
	switch c := rng.Intn(12); {
	case c < 2 && depth < 4:
		g.object(rng.Intn(16), depth)
	case c < 3 && depth < 4:
		g.b.WriteByte('[')
		for i := rng.Intn(4); i > 0; i-- {
			g.value(depth + 1)
			g.b.WriteByte(',')
		}
		g.value(depth + 1)
		g.b.WriteByte(']')
	case c < 6:
		fmt.Fprint(&g.b, rng.Intn(2000)-1000)
	case c < 7:
		g.b.WriteString([]string{"1.5", "-0.25", "1e20", "3.14159", "0"}[rng.Intn(5)])
	case c < 9:
		g.quote(g.key(nil))
	default:
		g.b.WriteString([]string{"true", "false", "null"}[rng.Intn(3)])
	}
}

func (g *orderDoc) doc(keys int) string {
	g.b.Reset()
	g.object(keys, 0)
	if s := g.b.String(); utf8.ValidString(s) {
		return s
	}
	panic("generated invalid UTF-8")
}

const roundTrips = `local out = {}
for i, s in ipairs(ARGV) do out[i] = cjson.encode(cjson.decode(s)) end
return out`

// pairsWalk lists every key pairs visits, depth first, so the order of
// nested objects counts too.
const pairsWalk = `local function walk(v, o)
  if type(v) ~= 'table' then return end
  for k, x in pairs(v) do o[#o + 1] = tostring(k) walk(x, o) end
  o[#o + 1] = '/'
end
local out = {}
for i, s in ipairs(ARGV) do local o = {} walk(cjson.decode(s), o) out[i] = table.concat(o, ' ') end
return out`

// TestDifferentialCJSONObjectOrder checks that decoded objects iterate,
// and re-encode, in exactly Redis's key order: every case compares bytes.
func TestDifferentialCJSONObjectOrder(t *testing.T) {
	fixed := []string{`{"b":1,"a":2,"zz":{"y":1,"x":2},"c":3}`, `{"z":1,"y":2,"x":{"q":1,"p":2}}`, jobJSON,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3,"c":4,"a":5}`, `{"\u00e9":1,"é":2}`, `{"":1,"\u0000":2}`, `{}`, `{"k":{}}`}
	cs := []difftest.Case{{Script: roundTrips, Argv: fixed}, {Script: pairsWalk, Argv: fixed}}
	g := &orderDoc{rng: rand.New(rand.NewSource(11))}
	docs := 0
	for batch := 0; batch < 40; batch++ {
		var argv []string
		for i := 0; i < 40; i++ {
			argv = append(argv, g.doc(g.rng.Intn(61)))
		}
		docs += len(argv)
		script := roundTrips
		if batch%4 == 3 {
			script = pairsWalk
		}
		cs = append(cs, difftest.Case{Script: script, Argv: argv})
	}
	// Large objects go through many rehashes.
	cs = append(cs, difftest.Case{Script: roundTrips, Argv: []string{g.doc(500), g.doc(3000), g.doc(20000)}})
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("object order: %d/%d batches (%d random documents, %d fixed, 3 large) match redis-server byte for byte",
		n, len(cs), docs, len(fixed))
}
