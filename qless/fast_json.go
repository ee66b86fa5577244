package qless

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qlessd/qlessd/scripts/luacjson"
)

// normalizeJSON is cjson.encode(cjson.decode(s)) for an object or array
// (what job data is), false when unsure: strings with escapes, numbers
// cjson would refuse, deep nesting, anything but strict JSON.
// It writes the result over dst and returns it; s is only read, so it may
// be a view of a request's buffer.
func normalizeJSON(dst []byte, s string) ([]byte, bool) {
	if len(s) == 0 || (s[0] != '{' && s[0] != '[') {
		return dst, false
	}
	n := getNormalizer(s)
	defer putNormalizer(n)
	out, ok := n.value(dst[:0], 0)
	if !ok {
		return dst, false
	}
	n.space()
	return out, n.pos == len(s)
}

// jsonNormalizer reads JSON and writes it as cjson re-encodes what it
// decoded on Redis: an object's keys in the order Lua 5.1 visits a table
// they were set in one by one (a repeated key keeps its first place and
// takes its last value), empty arrays as {}, numbers "%.14g", '/' escaped.
type jsonNormalizer struct {
	src string
	pos int
	// scratch holds an object's members while they are written again in
	// Lua's order, and the order itself.
	scratch []byte
	order   []int
}

func (n *jsonNormalizer) space() {
	for n.pos < len(n.src) && isJSONSpace(n.src[n.pos]) {
		n.pos++
	}
}

func (n *jsonNormalizer) value(out []byte, depth int) ([]byte, bool) {
	if depth > 100 {
		return nil, false
	}
	n.space()
	if n.pos >= len(n.src) {
		return nil, false
	}
	switch c := n.src[n.pos]; {
	case c == '{':
		return n.object(out, depth)
	case c == '[':
		return n.array(out, depth)
	case c == '"':
		str, ok := n.str()
		if !ok {
			return nil, false
		}
		return luacjson.AppendString(out, str), true
	case c == 't', c == 'f', c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(n.src)-n.pos >= len(lit) && n.src[n.pos:n.pos+len(lit)] == lit {
				n.pos += len(lit)
				return append(out, lit...), true
			}
		}
		return nil, false
	}
	start := n.pos
	for n.pos < len(n.src) && strings.IndexByte("+-.0123456789eE", n.src[n.pos]) >= 0 {
		n.pos++
	}
	tok := n.src[start:n.pos]
	if shortInteger(tok) {
		// "%.14g" writes such a number back as it came: ids, counts and
		// millisecond times skip the parse and the formatting.
		return append(out, tok...), true
	}
	v, ok := plainString(tok)
	if !ok {
		return nil, false
	}
	return append(out, luaNumber(v)...), true
}

// shortInteger reports a plain JSON integer of at most 14 digits (no
// leading zero), which a double holds exactly and "%.14g" prints unchanged.
func shortInteger(tok string) bool {
	digits := strings.TrimPrefix(tok, "-")
	if len(digits) == 0 || len(digits) > 14 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// str reads a string. One without escapes is a view of the source; one
// with escapes is decoded as cjson decodes it (false for a lone surrogate,
// which cjson refuses, and for raw control bytes).
func (n *jsonNormalizer) str() (string, bool) {
	n.pos++
	start := n.pos
	for n.pos < len(n.src) {
		c := n.src[n.pos]
		if c == '"' {
			n.pos++
			return n.src[start : n.pos-1], true
		}
		if c == '\\' {
			return n.escapedStr(start)
		}
		if c < 0x20 {
			return "", false
		}
		n.pos++
	}
	return "", false
}

// escapedStr finishes str for a string with escapes, from its start.
func (n *jsonNormalizer) escapedStr(start int) (string, bool) {
	out := []byte(n.src[start:n.pos])
	for n.pos < len(n.src) {
		c := n.src[n.pos]
		switch {
		case c == '"':
			n.pos++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			n.pos++
			continue
		}
		if n.pos+1 >= len(n.src) {
			return "", false
		}
		e := n.src[n.pos+1]
		n.pos += 2
		if r, ok := simpleEscapes[e]; ok {
			out = append(out, r)
			continue
		}
		if e != 'u' {
			return "", false
		}
		cp, ok := n.codePoint()
		if !ok {
			return "", false
		}
		out = utf8.AppendRune(out, cp)
	}
	return "", false
}

var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// codePoint reads the four hex digits after \u, and a low surrogate's
// escape after a high one.
func (n *jsonNormalizer) codePoint() (rune, bool) {
	hi, ok := n.hex4()
	if !ok || (hi >= 0xDC00 && hi <= 0xDFFF) {
		return 0, false
	}
	if hi < 0xD800 || hi > 0xDBFF {
		return rune(hi), true
	}
	if n.pos+2 > len(n.src) || n.src[n.pos] != '\\' || n.src[n.pos+1] != 'u' {
		return 0, false
	}
	n.pos += 2
	lo, ok := n.hex4()
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, false
	}
	return 0x10000 + rune(hi-0xD800)<<10 + rune(lo-0xDC00), true
}

func (n *jsonNormalizer) hex4() (int, bool) {
	if n.pos+4 > len(n.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(n.src[n.pos:n.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	n.pos += 4
	return int(v), true
}

func (n *jsonNormalizer) array(out []byte, depth int) ([]byte, bool) {
	n.pos++
	n.space()
	if n.pos < len(n.src) && n.src[n.pos] == ']' {
		n.pos++
		return append(out, "{}"...), true
	}
	out = append(out, '[')
	for {
		var ok bool
		if out, ok = n.value(out, depth+1); !ok {
			return nil, false
		}
		n.space()
		if n.pos >= len(n.src) {
			return nil, false
		}
		switch n.src[n.pos] {
		case ',':
			n.pos++
			out = append(out, ',')
		case ']':
			n.pos++
			return append(out, ']'), true
		default:
			return nil, false
		}
	}
}

func (n *jsonNormalizer) object(out []byte, depth int) ([]byte, bool) {
	n.pos++
	var keyArr [16]string
	var spanArr [16]memberSpan
	start := len(out)
	out = append(out, '{')
	out, keys, spans, ok := n.members(out, depth, keyArr[:0], spanArr[:0])
	if !ok {
		return nil, false
	}
	if len(keys) == 0 {
		return append(out, '}'), true
	}
	return n.inLuaOrder(out, start, keys, spans), true
}

// members reads an object's members up to its closing brace, writing each
// as `"key":value` (comma separated) to out and noting its key and where it
// sits.
func (n *jsonNormalizer) members(out []byte, depth int, keys []string, spans []memberSpan) ([]byte, []string, []memberSpan, bool) {
	n.space()
	if n.pos < len(n.src) && n.src[n.pos] == '}' {
		n.pos++
		return out, keys, spans, true
	}
	for {
		n.space()
		if n.pos >= len(n.src) || n.src[n.pos] != '"' {
			return nil, nil, nil, false
		}
		key, ok := n.str()
		if !ok {
			return nil, nil, nil, false
		}
		n.space()
		if n.pos >= len(n.src) || n.src[n.pos] != ':' {
			return nil, nil, nil, false
		}
		n.pos++
		if len(spans) > 0 {
			out = append(out, ',')
		}
		k0 := len(out)
		out = luacjson.AppendString(out, key)
		k1 := len(out)
		out = append(out, ':')
		if out, ok = n.value(out, depth+1); !ok {
			return nil, nil, nil, false
		}
		keys = append(keys, key)
		spans = append(spans, memberSpan{k0, k1, len(out)})
		n.space()
		if n.pos >= len(n.src) {
			return nil, nil, nil, false
		}
		switch n.src[n.pos] {
		case ',':
			n.pos++
		case '}':
			n.pos++
			return out, keys, spans, true
		default:
			return nil, nil, nil, false
		}
	}
}

// memberSpan is where one member of an object sits in the output: its key
// at [k0, k1), then ':' and its value up to end.
type memberSpan struct{ k0, k1, end int }

// decodesTruthy reports that cjson.decode(s) surely succeeds with a true
// value (not false): strict JSON cjson reads the same way. Whitespace
// around the value, \u escapes (cjson refuses lone surrogates) and deep
// nesting are left to the Lua.
func decodesTruthy(s []byte) bool {
	if len(s) == 0 || isJSONSpace(s[0]) || isJSONSpace(s[len(s)-1]) {
		return false
	}
	if bytes.Contains(s, []byte(`\u`)) || nesting(s) > 500 {
		return false
	}
	return json.Valid(s) && string(s) != "false"
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nesting is an upper bound of s's depth: brackets inside strings count too.
func nesting(s []byte) int {
	n := 0
	for _, c := range s {
		if c == '[' || c == '{' {
			n++
		}
	}
	return n
}

// jsonString is cjson's text of a string.
func jsonString(s string) string {
	// Sized for no escapes: then one allocation, shared by the string.
	b := luacjson.AppendString(make([]byte, 0, len(s)+2), s)
	return view(b)
}

// stringArray reads a JSON array of strings written without whitespace and
// without escapes but "\/" (what clients send as tags, and what cjson
// stores them as), false for anything else.
func stringArray(s string) ([]string, bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	var out []string
	i, end := 1, len(s)-1
	for i < end {
		if s[i] != '"' {
			return nil, false
		}
		i++
		start, slash := i, false
		for i < end && s[i] != '"' {
			switch {
			case s[i] == '\\' && i+1 < end && s[i+1] == '/':
				slash = true
				i += 2
			case s[i] == '\\' || s[i] < 0x20:
				return nil, false
			default:
				i++
			}
		}
		if i >= end {
			return nil, false
		}
		str := s[start:i]
		if slash {
			str = strings.ReplaceAll(str, `\/`, "/")
		}
		out = append(out, str)
		i++ // the closing quote
		if i < end {
			if s[i] != ',' || i+1 == end {
				return nil, false
			}
			i++
		}
	}
	return out, true
}

// stringArrayJSON is cjson's text of a non-empty array of strings.
func stringArrayJSON(items []string) string {
	b := []byte{'['}
	for i, s := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = luacjson.AppendString(b, s)
	}
	return string(append(b, ']'))
}
