package tests

import (
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// jnode is a parsed JSON value that keeps what Go's maps lose: the order of
// object keys and the text of numbers. The replies of qless.lua come from
// cjson, which writes keys in Lua table order; a client that decodes into an
// ordered structure sees that order, so it is part of the reply.
type jnode struct {
	kind byte     // '{', '[', '"' (string), '0' (number), 'l' (true, false, null)
	text string   // string value, number literal or literal word
	keys []string // object keys, in order
	vals []*jnode // object values or array elements
}

// parseOrderedJSON parses an object or array; ok is false for anything else.
func parseOrderedJSON(s string) (*jnode, bool) {
	if s == "" || s[0] != '{' && s[0] != '[' {
		return nil, false
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	n, err := readJNode(d)
	if err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return n, true
}

func readJNode(d *json.Decoder) (*jnode, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &jnode{kind: byte(v)}
		for d.More() {
			if n.kind == '{' {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			child, err := readJNode(d)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
		_, err := d.Token() // the closing delimiter
		return n, err
	case string:
		return &jnode{kind: '"', text: v}, nil
	case json.Number:
		return &jnode{kind: '0', text: string(v)}, nil
	case bool:
		if v {
			return &jnode{kind: 'l', text: "true"}, nil
		}
		return &jnode{kind: 'l', text: "false"}, nil
	case nil:
		return &jnode{kind: 'l', text: "null"}, nil
	}
	return nil, errors.New("unexpected JSON token")
}

// String writes the node back as compact JSON, keys in their order and
// numbers as written.
func (n *jnode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *jnode) write(b *strings.Builder) {
	switch n.kind {
	case '{', '[':
		b.WriteByte(n.kind)
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == '{' {
				writeJSONString(b, n.keys[i])
				b.WriteByte(':')
			}
			v.write(b)
		}
		b.WriteByte(n.kind + 2) // '{'+2 is '}', '['+2 is ']'
	case '"':
		writeJSONString(b, n.text)
	default:
		b.WriteString(n.text)
	}
}

func writeJSONString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// setArrayKeys name the job fields that qless fills from SMEMBERS, whose
// element order is Redis's hash-table order and so differs by server.
var setArrayKeys = map[string]bool{"dependents": true, "dependencies": true}

// normalise applies the comparison rules in place: arrays under
// setArrayKeys are sorted at any depth, and objects have their keys sorted
// when looseKeys is set (everywhere) or topKeys is set (at the top only).
func (n *jnode) normalise(looseKeys, topKeys bool) {
	for i, v := range n.vals {
		v.normalise(looseKeys, false)
		if n.kind == '{' && setArrayKeys[n.keys[i]] && v.kind == '[' {
			sort.Slice(v.vals, func(a, b int) bool { return v.vals[a].String() < v.vals[b].String() })
		}
	}
	if n.kind == '{' && (looseKeys || topKeys) {
		idx := make([]int, len(n.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return n.keys[idx[a]] < n.keys[idx[b]] })
		keys, vals := make([]string, len(idx)), make([]*jnode, len(idx))
		for i, j := range idx {
			keys[i], vals[i] = n.keys[j], n.vals[j]
		}
		n.keys, n.vals = keys, vals
	}
}
