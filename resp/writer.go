// Package resp defines how command handlers emit replies. A handler writes to a
// Writer; the network path streams RESP to the socket, while MULTI and Lua
// scripts record Go values instead of re-parsing RESP text.
package resp

// Writer receives one reply. Arrays are announced with their length and
// followed by exactly that many replies.
type Writer interface {
	WriteError(msg string)
	WriteStatus(s string)
	WriteBulk(b []byte)
	WriteBulkString(s string)
	WriteInt(n int64)
	WriteNull()      // null bulk string ($-1)
	WriteNullArray() // null array (*-1)
	WriteArray(n int)
}

// Kind tells which RESP2 type a recorded Value holds.
type Kind uint8

const (
	Null Kind = iota
	NullArray
	Status
	Error
	Int
	Bulk
	Array
)

// Value is a recorded reply.
type Value struct {
	Kind  Kind
	Str   string
	Int   int64
	Array []Value
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
	case Array:
		w.WriteArray(len(v.Array))
		for _, e := range v.Array {
			e.WriteTo(w)
		}
	}
}

// IsError reports whether the top-level reply is an error.
func (v Value) IsError() bool { return v.Kind == Error }
