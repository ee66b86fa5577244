package store

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// Type is the Redis type of a key.
type Type byte

const (
	TypeNone   Type = 0
	TypeString Type = 's'
	TypeHash   Type = 'h'
	TypeList   Type = 'l'
	TypeSet    Type = 'S'
	TypeZSet   Type = 'z'
)

// String returns the name TYPE replies with.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeHash:
		return "hash"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	}
	return "none"
}

// ErrWrongType is returned when a key holds a different type than the
// operation needs; commands turn it into Redis's WRONGTYPE reply.
var ErrWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")

// Meta is a key's metadata item: its type, its expiry (unix ms, 0 for none),
// and a payload that is the value for strings and a type-specific header for
// collections.
type Meta struct {
	Type     Type
	ExpireAt int64
	Payload  string
}

const metaHeader = 9

func (m Meta) encode() string {
	b := make([]byte, metaHeader+len(m.Payload))
	b[0] = byte(m.Type)
	binary.BigEndian.PutUint64(b[1:9], uint64(m.ExpireAt))
	copy(b[metaHeader:], m.Payload)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b goes nowhere else: one copy of a long value, not two
}

func decodeMeta(s string) (Meta, bool) {
	if len(s) < metaHeader {
		return Meta{}, false
	}
	return Meta{
		Type:     Type(s[0]),
		ExpireAt: int64(binary.BigEndian.Uint64([]byte(s[1:9]))),
		Payload:  s[metaHeader:],
	}, true
}

// hasItems reports whether the key may have items besides its metadata
// item: false for strings, for collections kept inline and for sorted sets
// (their members are in memory, zset_index.go), whose deletion then needs
// no scan of their data range.
func (m Meta) hasItems() bool {
	switch m.Type {
	case TypeString:
		return false
	case TypeHash, TypeSet:
		h, _ := decodeCollHeader(m.Payload)
		return !h.inline()
	case TypeList:
		return !listPayloadInline(m.Payload)
	case TypeZSet:
		return false
	}
	return true
}
