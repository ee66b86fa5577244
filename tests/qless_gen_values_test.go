package tests

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Argument values for the random calls: numbers, tag and jid lists, and job
// data. Data is mostly a JSON object of 0 to 8 keys, sometimes nested,
// because qless re-encodes data with cjson (heartbeat, complete, fail) and
// the key order it writes then is Lua's table order, which qlessd must
// reproduce.

func (g *callGen) delay() string {
	if g.chance(3) {
		return g.pick("0.5", "3", "10", "45.5", "120", "600")
	}
	return "0"
}

func (g *callGen) priorityValue() string {
	return g.pick("0", "0", "1", "2", "-1", "-3", "5", "10", "1.5", "2.75")
}

func (g *callGen) tags(n int) []string {
	out := []string{} // an empty list is [], not null
	for _, i := range g.rng.Perm(len(genTags))[:n] {
		out = append(out, genTags[i])
	}
	return out
}

func (g *callGen) tagsJSON() string {
	b, _ := json.Marshal(g.tags(g.rng.Intn(3)))
	if g.chance(4) {
		return strings.ReplaceAll(string(b), ",", ", ")
	}
	return string(b)
}

func (g *callGen) jidsJSON() string {
	var jids []string
	for n := 1 + g.rng.Intn(3); n > 0; n-- {
		jids = append(jids, g.jid())
	}
	b, _ := json.Marshal(jids)
	return string(b)
}

// data is a job's data: mostly an object of 0 to 8 keys, sometimes nested.
func (g *callGen) data() string {
	if g.chance(6) {
		return g.pick(genOtherData...)
	}
	return g.object(0)
}

func (g *callGen) object(depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range g.rng.Perm(len(genDataKeys))[:g.rng.Intn(9)] {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(genDataKeys[k])
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(g.value(depth))
	}
	b.WriteByte('}')
	return b.String()
}

func (g *callGen) value(depth int) string {
	switch g.rng.Intn(12) {
	case 0, 1:
		return strconv.Itoa(g.rng.Intn(2000) - 100)
	case 2:
		return g.pick("1.5", "0.25", "-2.5", "3.14159", "1e3", "2E-3", "12345678901234567", "0.1")
	case 3:
		return g.pick("true", "false")
	case 4:
		return "null"
	case 5, 6:
		if depth < 2 {
			return g.object(depth + 1)
		}
	case 7:
		if depth < 2 {
			var parts []string
			for n := g.rng.Intn(4); n > 0; n-- {
				parts = append(parts, g.value(depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
	}
	s, _ := json.Marshal(g.pick("x", "a/b", `said "no"`, "café", "", "http://example.com/a/b", "line\nbreak", "w1"))
	return string(s)
}
