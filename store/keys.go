package store

import (
	"encoding/binary"
	"strings"
	"unsafe"
)

// Layout of buntdb keys. Every Redis key has one metadata item, and
// collection types keep their elements under a data prefix that is unique to
// the key, so one key's elements form one contiguous range:
//
//	m <db> <key>                          -> type, expiry, type header or string value
//	d <db> <uvarint len(key)> <key> <...> -> collection elements (see each type's file)
//	x <db> <8-byte big-endian ms> <key>   -> "" (expiry index, ordered by deadline)
//	v                                     -> the layout's version (see formatKey)
//
// The length prefix keeps binary keys unambiguous: no key's data prefix is a
// prefix of another key's.
const (
	tagMeta   = 'm'
	tagData   = 'd'
	tagExpiry = 'x'
)

// formatKey holds formatZSetInMemoryOrder once the data file no longer has
// score-ordered items for sorted sets (zset_index.go).
const (
	formatKey               = "v"
	formatZSetInMemoryOrder = "2"
)

func metaKey(db int, key string) string {
	var b strings.Builder
	b.Grow(2 + len(key))
	b.WriteByte(tagMeta)
	b.WriteByte(byte(db))
	b.WriteString(key)
	return b.String()
}

func metaPrefix(db int) string { return string([]byte{tagMeta, byte(db)}) }

// dataPrefix returns the prefix under which key's elements live.
func dataPrefix(db int, key string) string {
	b := appendDataPrefix(make([]byte, 0, dataPrefixLen(key)+16), db, key)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendDataPrefix appends dataPrefix(db, key) to b.
func appendDataPrefix(b []byte, db int, key string) []byte {
	b = append(b, tagData, byte(db))
	b = binary.AppendUvarint(b, uint64(len(key)))
	return append(b, key...)
}

// dataPrefixLen is len(dataPrefix(db, key)).
func dataPrefixLen(key string) int { return 2 + uvarintLen(uint64(len(key))) + len(key) }

func expiryKey(db int, at int64, key string) string {
	var b strings.Builder
	b.Grow(10 + len(key))
	b.WriteByte(tagExpiry)
	b.WriteByte(byte(db))
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], uint64(at))
	b.Write(t[:])
	b.WriteString(key)
	return b.String()
}

func expiryPrefix(db int) string { return string([]byte{tagExpiry, byte(db)}) }

// prefixEnd returns the smallest string greater than every string with the
// given prefix, or "" when there is none (a prefix of all 0xff bytes).
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}
