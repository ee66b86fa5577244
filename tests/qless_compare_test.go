package tests

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Comparison of qlessd with redis-server running the same build: replies,
// events and keyspaces are rendered to canonical text by the same code on
// both sides and the texts must be equal. Only what legitimately differs
// between two servers is normalised away.

// looseKeyOrder is QLESS_BUILDS_KEY_ORDER=loose: JSON object key order is
// ignored, to see the differences that remain beyond key order.
var looseKeyOrder = os.Getenv("QLESS_BUILDS_KEY_ORDER") == "loose"

var (
	tableAddr = regexp.MustCompile(`table: 0x[0-9a-f]+`)
	// qless names the first dependent in SMEMBERS order, which differs
	// between servers.
	cancelDep = regexp.MustCompile(`(is a dependency of ).*?( but is not mentioned to be canceled)`)
)

// canonReply renders a reply. sha is the side's script SHA1; topKeys sorts
// the top-level keys of a JSON reply (`failed` with no group, whose keys come
// from SMEMBERS).
func canonReply(v respValue, sha string, loose, topKeys bool) string {
	switch v.Kind {
	case '+':
		return "+" + v.Str
	case '-':
		s := strings.ReplaceAll(v.Str, sha, "SHA")
		s = tableAddr.ReplaceAllString(s, "table: ADDR")
		return "-" + cancelDep.ReplaceAllString(s, "${1}DEP$2")
	case ':':
		return ":" + strconv.FormatInt(v.Int, 10)
	case '$':
		if v.Nil {
			return "$nil"
		}
		return "$" + canonText(v.Str, loose, topKeys)
	case '*':
		if v.Nil {
			return "*nil"
		}
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = canonReply(e, sha, loose, false)
		}
		return "*[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("?%c", v.Kind)
}

// canonText renders a bulk string or payload: a JSON object or array in
// canonical form (marked "json "), anything else quoted as is.
func canonText(s string, loose, topKeys bool) string {
	if n, ok := parseOrderedJSON(s); ok {
		n.normalise(loose, topKeys)
		return "json " + n.String()
	}
	return strconv.Quote(s)
}

// diffReply compares two canonical texts; in strict mode it says when the
// difference is only one of JSON key order, to tell expected differences
// from bugs at a glance.
func diffReply(q, r respValue, qsha, rsha string, topKeys bool) string {
	cq, cr := canonReply(q, qsha, looseKeyOrder, topKeys), canonReply(r, rsha, looseKeyOrder, topKeys)
	if cq == cr {
		return ""
	}
	return describeDiff(cq, cr, !looseKeyOrder &&
		canonReply(q, qsha, true, topKeys) == canonReply(r, rsha, true, topKeys))
}

const keyOrderOnly = "[key order only] "

func describeDiff(q, r string, orderOnly bool) string {
	tag := ""
	if orderOnly {
		tag = keyOrderOnly
	}
	i := 0
	for i < len(q) && i < len(r) && q[i] == r[i] {
		i++
	}
	return fmt.Sprintf("%sfirst difference at byte %d\n    qlessd: %s\n    redis:  %s", tag, i, q, r)
}

// diffEvents compares the pub/sub messages of one call.
func diffEvents(q, r [][2]string) string {
	if len(q) != len(r) {
		return fmt.Sprintf("%d events, redis %d\n    qlessd: %q\n    redis:  %q", len(q), len(r), q, r)
	}
	for i := range q {
		if q[i][0] != r[i][0] {
			return fmt.Sprintf("event %d on channel %q, redis %q", i, q[i][0], r[i][0])
		}
		cq, cr := canonText(q[i][1], looseKeyOrder, false), canonText(r[i][1], looseKeyOrder, false)
		if cq != cr {
			orderOnly := !looseKeyOrder && canonText(q[i][1], true, false) == canonText(r[i][1], true, false)
			return fmt.Sprintf("event %d on %s: %s", i, q[i][0], describeDiff(cq, cr, orderOnly))
		}
	}
	return ""
}

// keyspace is a whole database as readKey sees it.
type keyspace map[string]actualKey

func readKeyspace(t *testing.T, c *respConn) keyspace {
	keys, err := c.do("KEYS", "*")
	if err != nil {
		t.Fatal(err)
	}
	ks := keyspace{}
	for _, k := range keys.Elems {
		ks[k.Str] = readKey(t, c, k.Str)
	}
	return ks
}

// diffKeyspaces reports the first differing key, in key name order. Values
// are compared byte for byte, JSON ones with key order ignored in loose mode.
func diffKeyspaces(q, r keyspace) string {
	var names []string
	for k := range r {
		if _, ok := q[k]; !ok {
			return fmt.Sprintf("key %q missing on qlessd (redis: %s)", k, keyText(r[k]))
		}
		names = append(names, k)
	}
	for k := range q {
		if _, ok := r[k]; !ok {
			return fmt.Sprintf("key %q only on qlessd: %s", k, keyText(q[k]))
		}
	}
	sort.Strings(names)
	for _, k := range names {
		a, b := q[k], r[k]
		if d := diffKey(a, b); d != "" {
			orderOnly := !looseKeyOrder && diffKeyLoose(a, b) == ""
			tag := ""
			if orderOnly {
				tag = keyOrderOnly
			}
			return fmt.Sprintf("%skey %q: %s", tag, k, d)
		}
	}
	return ""
}

func diffKey(a, b actualKey) string { return diffKeyWith(a, b, looseKeyOrder) }

func diffKeyLoose(a, b actualKey) string { return diffKeyWith(a, b, true) }

func diffKeyWith(a, b actualKey, loose bool) string {
	same := func(x, y string) bool {
		if !loose {
			return x == y
		}
		return canonText(x, true, false) == canonText(y, true, false)
	}
	if a.Type != b.Type || a.TTL != b.TTL {
		return fmt.Sprintf("type %s ttl %v, redis type %s ttl %v", a.Type, a.TTL, b.Type, b.TTL)
	}
	switch a.Type {
	case "string":
		if !same(a.Str, b.Str) {
			return fmt.Sprintf("qlessd %q, redis %q", a.Str, b.Str)
		}
	case "hash":
		var fields []string
		for f := range b.Hash {
			fields = append(fields, f)
		}
		for f := range a.Hash {
			if _, ok := b.Hash[f]; !ok {
				fields = append(fields, f)
			}
		}
		sort.Strings(fields)
		for _, f := range fields {
			x, okx := a.Hash[f]
			y, oky := b.Hash[f]
			if okx != oky || !same(x, y) {
				return fmt.Sprintf("field %q:\n    qlessd: %s\n    redis:  %s", f, present(x, okx), present(y, oky))
			}
		}
	case "list":
		for i := 0; i < len(a.List) || i < len(b.List); i++ {
			if i >= len(a.List) || i >= len(b.List) || !same(a.List[i], b.List[i]) {
				return fmt.Sprintf("item %d:\n    qlessd: %q\n    redis:  %q", i, a.List, b.List)
			}
		}
	case "set":
		x, y := append([]string(nil), a.Set...), append([]string(nil), b.Set...)
		sort.Strings(x)
		sort.Strings(y)
		if strings.Join(x, "\x00") != strings.Join(y, "\x00") || len(x) != len(y) {
			return fmt.Sprintf("set %q, redis %q", x, y)
		}
	case "zset":
		if fmt.Sprintf("%q", a.ZSet) != fmt.Sprintf("%q", b.ZSet) {
			return fmt.Sprintf("zset\n    qlessd: %q\n    redis:  %q", a.ZSet, b.ZSet)
		}
	}
	return ""
}

func present(s string, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return strconv.Quote(s)
}

func keyText(k actualKey) string {
	return fmt.Sprintf("%s %q%q%q%q%q", k.Type, k.Str, k.Hash, k.List, k.Set, k.ZSet)
}
