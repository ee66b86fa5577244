package store

import (
	"encoding/binary"
	"unsafe"
)

// Small hashes and sets keep their elements inside the metadata payload, after
// the header, as a run of strings each preceded by its uvarint length. The
// readers below work on the payload string in place, so looking up one element
// allocates nothing.

// readUvarint decodes a uvarint at s[i:] and returns it with the index after
// it; ok is false when s ends early or the number is malformed.
func readUvarint(s string, i int) (v uint64, next int, ok bool) {
	var shift uint
	for j := i; j < len(s) && j-i < binary.MaxVarintLen64; j++ {
		c := s[j]
		if c < 0x80 {
			return v | uint64(c)<<shift, j + 1, true
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, i, false
}

// readPacked returns the length-prefixed string at s[i:] and the index after
// it; ok is false when the payload is cut short.
func readPacked(s string, i int) (str string, next int, ok bool) {
	n, j, ok := readUvarint(s, i)
	if !ok || n > uint64(len(s)-j) {
		return "", i, false
	}
	end := j + int(n)
	return s[j:end], end, true
}

// packedSize is the encoded size of s.
func packedSize(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// Header flags shared by hashes and sets. Payloads written before inline
// storage existed carry 0 or 1 and mean elements stored as items.
const (
	flagBig    = 1 // Redis would use a hashtable (not listpack / intset)
	flagInline = 2 // the elements follow the header in the payload
)

// collHeader is the payload header of a hash or set: element count and flags.
type collHeader struct {
	count int64
	flags byte
}

// decodeCollHeader parses the header and returns the index where inline
// elements start.
func decodeCollHeader(p string) (collHeader, int) {
	n, i, ok := readUvarint(p, 0)
	if !ok {
		return collHeader{}, len(p)
	}
	h := collHeader{count: int64(n)}
	if i < len(p) {
		h.flags = p[i]
		i++
	}
	return h, i
}

func (h collHeader) big() bool    { return h.flags&flagBig != 0 }
func (h collHeader) inline() bool { return h.flags&flagInline != 0 }

// appendCollMeta starts a collection's metadata item: the Meta header and
// the collHeader, to be followed by the packed elements.
func appendCollMeta(b []byte, t Type, expireAt int64, h collHeader) []byte {
	b = append(b, byte(t))
	b = binary.BigEndian.AppendUint64(b, uint64(expireAt))
	b = binary.AppendUvarint(b, uint64(h.count))
	return append(b, h.flags)
}

func appendPacked(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// collMetaSize is the length of a metadata item with header h and size bytes
// of elements.
func collMetaSize(h collHeader, size int) int {
	return metaHeader + uvarintLen(uint64(h.count)) + 1 + size
}

// commitColl writes the metadata item encoded by appendCollMeta and the
// elements, for a collection whose expiry did not change (a new key has
// none), so the expiry index needs no update: it is putMeta without copying
// a payload that may be kilobytes long. b must not be written afterwards.
func (tx *Tx) commitColl(key string, b []byte) {
	v := unsafe.String(unsafe.SliceData(b), len(b))
	mk := metaKey(tx.sel, key)
	tx.rawSet(mk, v)
	m, _ := decodeMeta(v)
	tx.metaWritten(mk, key, m, true)
	tx.touch(key)
}
