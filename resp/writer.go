// Package resp defines how command handlers emit replies. A handler writes to a
// Writer; the network path streams RESP to the socket, while MULTI and Lua
// scripts record Go values instead of re-parsing RESP text.
//
// A handler states a reply's shape once (a map, a set, a double) and the
// writer spells it in the connection's protocol: RESP3's own types after
// HELLO 3, their RESP2 forms otherwise, as Redis 7.0's addReplyMapLen,
// addReplySetLen and addReplyDouble do.
package resp

import (
	"math"
	"strconv"
)

// Writer receives one reply. Arrays are announced with their length and
// followed by exactly that many replies; maps with their number of pairs,
// followed by a key and a value for each.
type Writer interface {
	WriteError(msg string)
	WriteStatus(s string)
	WriteBulk(b []byte)
	WriteBulkString(s string)
	WriteInt(n int64)
	WriteNull()      // null: $-1 in RESP2, _ in RESP3
	WriteNullArray() // null array: *-1 in RESP2, _ in RESP3
	WriteArray(n int)
	WriteMap(n int)         // n pairs: *2n in RESP2, %n in RESP3
	WriteSet(n int)         // *n in RESP2, ~n in RESP3
	WriteDouble(f float64)  // a bulk string in RESP2, ,f in RESP3
	WriteBool(b bool)       // :1/:0 in RESP2, #t/#f in RESP3
	WriteVerbatim(s string) // a bulk string in RESP2, =len txt:s in RESP3
	// WriteVerbatimExt is WriteVerbatim with another format than txt (a
	// script's verbatim_string): ext is cut or padded to three characters.
	WriteVerbatimExt(ext, s string)
	WriteBigNumber(s string) // a bulk string in RESP2, (s in RESP3
	// WritePairs announces an array of n pairs (ZRANGE WITHSCORES,
	// HRANDFIELD WITHVALUES): flat (*2n) in RESP2, n arrays of two in
	// RESP3. Each pair starts with WritePair, then its two elements.
	WritePairs(n int)
	WritePair()
	// WritePush announces a pub/sub message or (un)subscribe confirmation
	// of n elements: an array in RESP2, a push frame (>n) in RESP3.
	WritePush(n int)
}

// ProtoSwitcher is a Writer whose protocol HELLO and RESET change while a
// reply is being written: HELLO's own reply is in the protocol it picks.
type ProtoSwitcher interface {
	SetResp3(on bool)
}

// SetResp3 switches w, when it can switch, to RESP3 (on) or RESP2.
func SetResp3(w Writer, on bool) {
	if ps, ok := w.(ProtoSwitcher); ok {
		ps.SetResp3(on)
	}
}

// FormatDouble is a double as Redis 7.0 writes it in a reply
// (addReplyDouble): "%.17g", with inf and -inf spelled out.
func FormatDouble(f float64) string {
	if math.IsInf(f, 1) {
		return "inf"
	}
	if math.IsInf(f, -1) {
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// AppendDouble appends f as a RESP3 double (,f) or, in RESP2, a bulk string.
func AppendDouble(b []byte, f float64, resp3 bool) []byte {
	s := FormatDouble(f)
	if resp3 {
		b = append(b, ',')
		b = append(b, s...)
		return append(b, '\r', '\n')
	}
	return AppendBulk(b, s)
}

// AppendVerbatim appends s as a RESP3 verbatim string of format ext (cut
// or padded with blanks to three characters, as Redis does) or, in RESP2,
// a bulk string.
func AppendVerbatim(b []byte, ext, s string, resp3 bool) []byte {
	if !resp3 {
		return AppendBulk(b, s)
	}
	b = append(b, '=')
	b = strconv.AppendInt(b, int64(len(s)+4), 10)
	b = append(b, '\r', '\n')
	for i := 0; i < 3; i++ {
		if i < len(ext) {
			b = append(b, ext[i])
		} else {
			b = append(b, ' ')
		}
	}
	b = append(b, ':')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// AppendBigNumber appends s as a RESP3 big number or, in RESP2, a bulk
// string.
func AppendBigNumber(b []byte, s string, resp3 bool) []byte {
	if !resp3 {
		return AppendBulk(b, s)
	}
	b = append(b, '(')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// AppendAggregate appends an aggregate header: a prefix (*, %, ~, >) and n.
func AppendAggregate(b []byte, prefix byte, n int) []byte {
	b = append(b, prefix)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// AppendBulk appends s as a bulk string; the store's journal, a stream of
// RESP commands, writes its records with it too.
func AppendBulk(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// Kind tells which type a recorded Value holds.
type Kind uint8

const (
	Null Kind = iota
	NullArray
	Status
	Error
	Int
	Bulk
	Array
	Map      // Array holds the keys and values in turn
	Set      // Array holds the members
	Double   // Str holds the number as FormatDouble wrote it; Float the number
	Bool     // Int is 1 or 0
	Verbatim // Str
	Pairs    // Array holds the pairs' elements in turn
	BigNum   // Str
)

// Value is a recorded reply.
type Value struct {
	Kind  Kind
	Str   string
	Int   int64
	Float float64
	Ext   string // a Verbatim's format, "" for txt
	Array []Value
}

// aggregate reports whether v's Kind holds elements in Array.
func (v Value) aggregate() bool {
	return v.Kind == Array || v.Kind == Map || v.Kind == Set || v.Kind == Pairs
}

// WriteTo replays v into w.
func (v Value) WriteTo(w Writer) {
	switch v.Kind {
	case Null:
		w.WriteNull()
	case NullArray:
		w.WriteNullArray()
	case Status:
		w.WriteStatus(v.Str)
	case Error:
		w.WriteError(v.Str)
	case Int:
		w.WriteInt(v.Int)
	case Bulk:
		w.WriteBulkString(v.Str)
	case Double:
		w.WriteDouble(v.Float)
	case Bool:
		w.WriteBool(v.Int != 0)
	case Verbatim:
		if v.Ext != "" {
			w.WriteVerbatimExt(v.Ext, v.Str)
		} else {
			w.WriteVerbatim(v.Str)
		}
	case BigNum:
		w.WriteBigNumber(v.Str)
	case Pairs:
		w.WritePairs(len(v.Array) / 2)
		for i, e := range v.Array {
			if i%2 == 0 {
				w.WritePair()
			}
			e.WriteTo(w)
		}
	case Array, Map, Set:
		switch v.Kind {
		case Map:
			w.WriteMap(len(v.Array) / 2)
		case Set:
			w.WriteSet(len(v.Array))
		default:
			w.WriteArray(len(v.Array))
		}
		for _, e := range v.Array {
			e.WriteTo(w)
		}
	}
}

// Resp2 is v as a RESP2 connection gets it: maps, sets and pairs flat
// arrays, doubles and verbatim strings bulk strings, booleans 1 or 0.
func (v Value) Resp2() Value {
	switch v.Kind {
	case Double:
		return Value{Kind: Bulk, Str: v.Str}
	case Verbatim, BigNum:
		return Value{Kind: Bulk, Str: v.Str}
	case Bool:
		return Value{Kind: Int, Int: v.Int}
	case Array, Map, Set, Pairs:
		a := make([]Value, len(v.Array))
		for i, e := range v.Array {
			a[i] = e.Resp2()
		}
		return Value{Kind: Array, Array: a}
	}
	return v
}

// IsError reports whether the top-level reply is an error.
func (v Value) IsError() bool { return v.Kind == Error }
