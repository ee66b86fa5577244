package qless

import (
	"strconv"
	"sync"

	"github.com/qlessd/qlessd/scripts/luacjson"
	"github.com/qlessd/qlessd/scripts/luatable"
)

// Redis's cjson writes an object's keys in the order its Lua (5.1) table
// visits them, which its hashing fixes (package luatable). Job data, a
// failure, a history entry's details: whatever qless decodes and encodes
// again comes out in that order on Redis, so it does here.

// inLuaOrder closes the object whose members follow out[start] (its '{',
// or the ',' after members that stay first), keys and spans as members
// noted them, rewriting the members in the order Lua visits a table they
// were set into one after another, each key once, with its last value.
func (n *jsonNormalizer) inLuaOrder(out []byte, start int, keys []string, spans []memberSpan) []byte {
	n.order = luatable.Order(0, keys, n.order[:0])
	if len(n.order) == len(keys) && isIdentity(n.order) {
		return append(out, '}')
	}
	n.scratch = append(n.scratch[:0], out[start:]...)
	src := n.scratch
	out = out[:start+1]
	for i, k := range n.order {
		last := k
		for j := k + 1; j < len(keys); j++ {
			if keys[j] == keys[k] {
				last = j
			}
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, src[spans[k].k0-start:spans[k].k1-start]...)
		out = append(out, src[spans[last].k1-start:spans[last].end-start]...)
	}
	return append(out, '}')
}

func isIdentity(order []int) bool {
	for i, k := range order {
		if k != i {
			return false
		}
	}
	return true
}

// normalizers recycles jsonNormalizer scratch buffers.
var normalizers = sync.Pool{New: func() any { return new(jsonNormalizer) }}

// maxKeptScratch bounds the scratch a pooled normalizer keeps.
const maxKeptScratch = 64 << 10

func getNormalizer(s string) *jsonNormalizer {
	n := normalizers.Get().(*jsonNormalizer)
	n.src, n.pos = s, 0
	return n
}

func putNormalizer(n *jsonNormalizer) {
	n.src = ""
	if cap(n.scratch) > maxKeptScratch {
		n.scratch = nil
	}
	normalizers.Put(n)
}

// appendHistoryDict appends the object qless's job object holds for one
// history entry [when, what, {details}]: the details decoded, then when
// and what set in it, as cjson writes that table on Redis. false (out
// unchanged in length) for entries the Lua must handle: details that are
// not an object, strings with escapes, numbers it would not write as is.
func appendHistoryDict(out []byte, entry string) ([]byte, bool) {
	n := getNormalizer(entry)
	defer putNormalizer(n)
	orig, mark := out, len(out)
	fail := func() ([]byte, bool) { return orig[:mark], false }
	if !n.expect('[') {
		return fail()
	}
	var whenText [32]byte
	when, ok := n.value(whenText[:0], 1)
	if !ok || len(when) == 0 || (when[0] != '-' && (when[0] < '0' || when[0] > '9')) || !n.expect(',') {
		return fail()
	}
	var whatText [64]byte
	what, ok := n.value(whatText[:0], 1)
	if !ok || len(what) == 0 || what[0] != '"' {
		return fail()
	}
	var keyArr [16]string
	var spanArr [16]memberSpan
	keys, spans := keyArr[:0], spanArr[:0]
	out = append(out, '{')
	if n.expect(',') {
		if n.expectLiteral("false") {
			// value[3] or {}: no details. (null is cjson.null, which is
			// true, and qless then fails indexing it: the Lua's to raise.)
		} else if n.expect('[') {
			// A list's items sit in the table's array part, which Lua
			// visits first, as keys "1", "2", ...; when and what follow.
			if out, ok = n.indexedMembers(out); !ok {
				return fail()
			}
			mark = len(out) - 1
			if out[mark] != '{' {
				out = append(out, ',')
				mark = len(out) - 1
			}
		} else if !n.expect('{') {
			return fail()
		} else if out, keys, spans, ok = n.members(out, 1, keys, spans); !ok {
			return fail()
		}
	}
	if !n.expect(']') || n.skipSpace() != len(n.src) {
		return fail()
	}
	for _, m := range [2]struct {
		key  string
		text []byte
	}{{"when", when}, {"what", what}} {
		if len(spans) > 0 {
			out = append(out, ',')
		}
		k0 := len(out)
		out = luacjson.AppendString(out, m.key)
		k1 := len(out)
		out = append(append(out, ':'), m.text...)
		keys = append(keys, m.key)
		spans = append(spans, memberSpan{k0, k1, len(out)})
	}
	return n.inLuaOrder(out, mark, keys, spans), true
}

// expect skips spaces and then c, reporting whether c was there.
func (n *jsonNormalizer) expect(c byte) bool {
	n.space()
	if n.pos < len(n.src) && n.src[n.pos] == c {
		n.pos++
		return true
	}
	return false
}

// expectLiteral skips spaces and then lit, reporting whether it was there.
func (n *jsonNormalizer) expectLiteral(lit string) bool {
	n.space()
	if len(n.src)-n.pos >= len(lit) && n.src[n.pos:n.pos+len(lit)] == lit {
		n.pos += len(lit)
		return true
	}
	return false
}

func (n *jsonNormalizer) skipSpace() int {
	n.space()
	return n.pos
}

// indexedMembers reads a list's items up to its closing bracket, writing
// each as `"<index>":value`, comma separated.
func (n *jsonNormalizer) indexedMembers(out []byte) ([]byte, bool) {
	if n.expect(']') {
		return out, true
	}
	for i := 1; ; i++ {
		if i > 1 {
			out = append(out, ',')
		}
		out = append(strconv.AppendInt(append(out, '"'), int64(i), 10), '"', ':')
		var ok bool
		if out, ok = n.value(out, 2); !ok {
			return nil, false
		}
		if n.expect(']') {
			return out, true
		}
		if !n.expect(',') {
			return nil, false
		}
	}
}
