package store

import (
	"encoding/binary"
	"unsafe"
)

// A long value read off a connection is already in a buffer of its own
// (the server reads a bulk of BigValue bytes or more into one made at its
// announced size). Copied into the store's item, or into the journal
// record that holds the item (journal_big.go), a 500 MB SET held the
// value twice at its peak. A Room is such a buffer handed over with space
// before and after the value: the store writes the item's header (and,
// with a data file, the record's head and the frame's) before the value
// and the record's end after it, and keeps the buffer as the item, so the
// value's bytes are never copied on their way in.

// BigValue is the value size from which the store takes a value's buffer
// over (the size from which a string's item is built in its record).
const BigValue = bigItem

// Room space a Room needs around its value to be taken over. RoomBefore
// covers the item's header, the frame's header and the multi record, a
// set record's head for a key of up to RoomKey bytes, and the records a
// SET writes before it (an expiry entry set, an old one deleted), which
// carry the key too. RoomAfter covers the record's CRLF, the exec record
// and a few short records after it; longer ones move the transaction's
// records to a buffer of their own, the value copied once, as before.
const (
	RoomKey    = 4 << 10
	RoomBefore = 512 + 4*RoomKey
	RoomAfter  = 2 + 1022
)

// Room is a long value, Buf[Off:Off+Len], with the room around it that
// the store may write into. The one who hands it over promises that
// nothing else writes to Buf again, and that it is handed over once: the
// store may keep Buf[Off-metaHeader:Off+Len] as an item for good.
type Room struct {
	Buf      []byte
	Off, Len int
}

// value is the room's value as a string sharing its bytes.
func (r *Room) value() string {
	return unsafe.String(&r.Buf[r.Off], r.Len)
}

// holds reports whether s is the room's value itself (not a copy).
func (r *Room) holds(s string) bool {
	return r != nil && len(s) == r.Len && r.Len > 0 && unsafe.StringData(s) == &r.Buf[r.Off]
}

// item writes m's header before the value and returns the item, which
// shares the room's bytes.
func (r *Room) item(m Meta) string {
	h := r.Off - metaHeader
	r.Buf[h] = byte(m.Type)
	binary.BigEndian.PutUint64(r.Buf[h+1:r.Off], uint64(m.ExpireAt))
	return unsafe.String(&r.Buf[h], metaHeader+r.Len)
}

// SetStringRoom is SetString with a long value in a buffer the store
// takes over (Room): the value is not copied into the store or the data
// file's records. A room the store cannot use (no space, a short value)
// is read like any value: the store copies it.
func (tx *Tx) SetStringRoom(key string, r *Room, expireAt int64, keepTTL bool) {
	if r.Len < BigValue || r.Off < RoomBefore || len(r.Buf)-r.Off-r.Len < 2 {
		tx.SetString(key, r.value(), expireAt, keepTTL)
		return
	}
	tx.room = r
	defer func() { tx.room = nil }()
	tx.SetString(key, r.value(), expireAt, keepTTL)
}
