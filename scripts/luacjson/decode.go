package luacjson

import (
	"strings"
	"unicode/utf8"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	"github.com/qlessd/qlessd/scripts/luatable"
	lua "github.com/yuin/gopher-lua"
)

type tokenType int

// Token names appear in error messages exactly as lua-cjson spells them.
const (
	tObjBegin tokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var tokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END",
	"T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

// charTokens is lua-cjson's ch2token table.
var charTokens [256]tokenType

func init() {
	for i := range charTokens {
		charTokens[i] = tError
	}
	charTokens['{'] = tObjBegin
	charTokens['}'] = tObjEnd
	charTokens['['] = tArrBegin
	charTokens[']'] = tArrEnd
	charTokens[','] = tComma
	charTokens[':'] = tColon
	charTokens[0] = tEnd
	for _, c := range " \t\n\r" {
		charTokens[c] = tWhitespace
	}
	for _, c := range "fiInNt\"+-0123456789" {
		charTokens[c] = tUnknown
	}
}

type token struct {
	typ   tokenType
	index int // 0-based position, shown 1-based in errors
	str   string
	num   float64
	b     bool
	err   string // the "found" text of a T_ERROR token
}

type decoder struct {
	L     *lua.LState
	cfg   *config
	data  string
	pos   int
	depth int
	stack int // Lua stack slots json_decode would hold (lua_checkstack emulation)
	// values counts the values read, to poll SCRIPT KILL every so many
	values int
	tmp    []byte
	// vals and keys hold the members of the objects and arrays being read,
	// innermost last, so each table is made once at its final size:
	// gopher-lua's default table preallocates room for 32 of each.
	vals []lua.LValue
	keys []string
	// tab and order find the order an object's keys go into its table in
	// (see objectTable); both are reused from object to object.
	tab   luatable.Table
	order []int
}

// decodedValueBytes is about what a decoded value takes in a table.
const decodedValueBytes = 48

// at returns the byte at i, or NUL past the end as C's terminator.
func (d *decoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (c *config) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		clua.ArgError(L, 1, "expected 1 argument")
	}
	data := clua.CheckString(L, 1)
	// Reused as encode's encoder is; the member stacks keep their room.
	d := &c.dec
	*d = decoder{L: L, cfg: c, data: data, stack: 1, tmp: d.tmp[:0], vals: d.vals[:0], keys: d.keys[:0],
		tab: d.tab, order: d.order[:0]}
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		clua.Raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	var tok token
	d.next(&tok)
	v := d.value(&tok)
	d.next(&tok)
	if tok.typ != tEnd {
		d.parseError("the end", &tok)
	}
	L.Push(v)
	d.L, d.data = nil, ""
	if cap(d.tmp) > maxKeptBuffer {
		d.tmp = nil
	}
	if cap(d.order) > maxKeptMembers {
		d.order, d.tab = nil, luatable.Table{}
	}
	return 1
}

func (d *decoder) parseError(expected string, tok *token) {
	found := tokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.err
	}
	clua.Raise(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *decoder) setError(tok *token, msg string) {
	tok.typ = tError
	tok.index = d.pos
	tok.err = msg
}

func (d *decoder) next(tok *token) {
	var c byte
	for {
		c = d.at(d.pos)
		tok.typ = charTokens[c]
		if tok.typ != tWhitespace {
			break
		}
		d.pos++
	}
	tok.index = d.pos
	switch tok.typ {
	case tError:
		d.setError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		d.pos++
		return
	}
	rest := d.data[d.pos:]
	switch {
	case c == '"':
		d.stringToken(tok)
	case c == '-' || (c >= '0' && c <= '9'):
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			d.setError(tok, "invalid number")
			return
		}
		d.numberToken(tok)
	case strings.HasPrefix(rest, "true"):
		tok.typ, tok.b = tBoolean, true
		d.pos += 4
	case strings.HasPrefix(rest, "false"):
		tok.typ, tok.b = tBoolean, false
		d.pos += 5
	case strings.HasPrefix(rest, "null"):
		tok.typ = tNull
		d.pos += 4
	case d.cfg.decodeInvalid && d.invalidNumber():
		d.numberToken(tok)
	default:
		d.setError(tok, "invalid token")
	}
}

// invalidNumber mirrors json_is_invalid_number: forms strtod accepts but
// JSON does not (leading '+', hex, leading zeros, inf, nan).
func (d *decoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if d.at(p) == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || (c2 >= '0' && c2 <= '9')
	} else if d.at(p) <= '9' {
		return false
	}
	// A NUL (C's end of string) simply fails to match.
	rest := d.data[p:min(p+3, len(d.data))]
	return strings.EqualFold(rest, "inf") || strings.EqualFold(rest, "nan")
}

func (d *decoder) numberToken(tok *token) {
	// strtod stops at a NUL byte like at any other non-number byte.
	v, n := clua.Strtod(d.data[d.pos:])
	if n == 0 {
		d.setError(tok, "invalid number")
		return
	}
	tok.typ = tNumber
	tok.num = v
	d.pos += n
}

var unescapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f',
	'n': '\n', 'r': '\r', 't': '\t', 'u': 'u'}

func (d *decoder) stringToken(tok *token) {
	d.pos++
	d.tmp = d.tmp[:0]
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.setError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			c = unescapes[d.at(d.pos+1)]
			if c == 'u' {
				if !d.unicodeEscape() {
					d.setError(tok, "invalid unicode escape code")
					return
				}
				continue
			}
			if c == 0 {
				d.setError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		d.tmp = append(d.tmp, c)
		d.pos++
	}
	d.pos++
	tok.typ = tString
	if len(d.tmp) > declareStep {
		limits.Grow(d.L, len(d.tmp))
	}
	tok.str = string(d.tmp)
}

func (d *decoder) hex4(p int) int {
	v := 0
	for i := 0; i < 4; i++ {
		c := d.at(p + i)
		var h int
		switch {
		case c >= '0' && c <= '9':
			h = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			h = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | h
	}
	return v
}

// unicodeEscape decodes \uXXXX (or a surrogate pair) at d.pos into UTF-8.
func (d *decoder) unicodeEscape() bool {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		n = 12
	}
	d.tmp = appendUTF8(d.tmp, cp)
	d.pos += n
	return true
}

// appendUTF8 encodes without Go's surrogate check: a lone low surrogate
// escape never reaches here, and lua-cjson would encode it plainly anyway.
func appendUTF8(b []byte, cp int) []byte {
	if cp >= 0xD800 && cp <= 0xDFFF {
		return append(b, byte(0xE0|cp>>12), byte(0x80|(cp>>6)&0x3F), byte(0x80|cp&0x3F))
	}
	return utf8.AppendRune(b, rune(cp))
}

func (d *decoder) descend(slots int) {
	d.depth++
	if int64(d.depth) <= int64(d.cfg.decodeMaxDepth) && d.stack+slots <= luaMaxCStack {
		return
	}
	clua.Raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.pos)
}

func (d *decoder) value(tok *token) lua.LValue {
	if d.values++; d.values%limits.Every == 0 {
		// Decoded values take far more room than their text: count a
		// generous size for each, and long strings apart (stringToken).
		limits.Poll(d.L)
		limits.Grow(d.L, limits.Every*decodedValueBytes)
	}
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tObjBegin:
		return d.object()
	case tArrBegin:
		return d.array()
	case tNull:
		return Null
	}
	d.parseError("value", tok)
	return lua.LNil
}

func (d *decoder) object() lua.LValue {
	d.descend(3)
	var tok token
	d.next(&tok)
	if tok.typ == tObjEnd {
		d.depth--
		return d.L.CreateTable(0, 0)
	}
	d.stack += 2
	base := len(d.vals)
	for {
		if tok.typ != tString {
			d.parseError("object key string", &tok)
		}
		key := tok.str
		d.next(&tok)
		if tok.typ != tColon {
			d.parseError("colon", &tok)
		}
		d.next(&tok)
		v := d.value(&tok)
		d.keys = append(d.keys, key)
		d.vals = append(d.vals, v)
		d.next(&tok)
		if tok.typ == tObjEnd {
			d.stack -= 2
			d.depth--
			t := d.objectTable(base)
			d.pop(base)
			return t
		}
		if tok.typ != tComma {
			d.parseError("comma or object end", &tok)
		}
		d.next(&tok)
	}
}

// maxKeptMembers bounds the object size whose ordering scratch is kept
// between calls.
const maxKeptMembers = 4096

// objectTable makes the table of the object whose members lie above base.
// Redis's decoder sets them one by one into a new Lua 5.1 table, so pairs
// and cjson.encode then visit the keys in that table's hash order. A
// gopher-lua table visits keys in insertion order, so they are inserted
// in the order Lua 5.1 would visit them. A repeated key keeps its first
// node there and takes its last value.
func (d *decoder) objectTable(base int) *lua.LTable {
	keys, vals := d.keys[base:], d.vals[base:]
	if len(keys) == 1 {
		t := d.L.CreateTable(0, 1)
		t.RawSetString(keys[0], vals[0])
		return t
	}
	d.tab.Reset(0, keys)
	for i := range keys {
		if first := d.tab.Set(i); first != i {
			vals[first] = vals[i]
		}
	}
	d.order = d.tab.AppendOrder(d.order[:0])
	d.tab.Release()
	t := d.L.CreateTable(0, len(d.order))
	for _, i := range d.order {
		t.RawSetString(keys[i], vals[i])
	}
	return t
}

// pop drops the members above base once their table is made; keys are
// kept in step with vals (arrays store "" there).
func (d *decoder) pop(base int) {
	clear(d.vals[base:])
	d.vals = d.vals[:base]
	d.keys = d.keys[:base]
}

func (d *decoder) array() lua.LValue {
	d.descend(2)
	var tok token
	d.next(&tok)
	if tok.typ == tArrEnd {
		d.depth--
		return d.L.CreateTable(0, 0)
	}
	d.stack++
	base := len(d.vals)
	for {
		v := d.value(&tok)
		d.keys = append(d.keys, "")
		d.vals = append(d.vals, v)
		d.next(&tok)
		if tok.typ == tArrEnd {
			d.stack--
			d.depth--
			t := d.L.CreateTable(len(d.vals)-base, 0)
			for i, v := range d.vals[base:] {
				t.RawSetInt(i+1, v)
			}
			d.pop(base)
			return t
		}
		if tok.typ != tComma {
			d.parseError("comma or array end", &tok)
		}
		d.next(&tok)
	}
}
