package store

import (
	"encoding/binary"
	"slices"
	"strconv"
	"unsafe"

	"github.com/qlessd/qlessd/resp"
)

// A long string value is copied once on its way in: into the record that
// sets it, in the journal's buffer, whose bytes then are the stored item
// too (buntdb's strings are never changed). Copied once for the store and
// again for the data file, and again into the frame, a 500 MB SET held
// four times its size at once. The buffer holding such an item is never
// reused: it is larger than maxKeptBuffer, so seal, discard and the writer
// let go of it, and only appends follow the item's bytes. A value handed
// over in a Room is not copied even once: its buffer becomes the record
// (adoptSetItem, room.go).

// bigItem is the value size from which a string's item is built in its
// record.
const bigItem = maxKeptBuffer + 1

// openHead is the room left before the records of a transaction that
// begins with a long value: the frame's header, then the multi record, so
// that seal can make the buffer the pending frame without copying it.
const openHead = frameHeaderLen + len(recMulti)

// addSetItem records setting item k to m, encoded in the record itself,
// and returns the item, which shares the record's bytes. The caller sets
// it in buntdb and notes how to take it back (noteItem).
func (j *journal) addSetItem(k string, m Meta) string {
	n := metaHeader + len(m.Payload)
	if len(j.open) == 0 {
		j.open = make([]byte, openHead, openHead+64+len(k)+n)
		j.headRoom = true
	}
	j.open = slices.Grow(appendSetHead(j.open, k, n), n+2)
	start := len(j.open)
	j.open = append(j.open, byte(m.Type))
	j.open = binary.BigEndian.AppendUint64(j.open, uint64(m.ExpireAt))
	j.open = append(j.open, m.Payload...)
	item := unsafe.String(&j.open[start], n)
	j.open = append(j.open, '\r', '\n')
	j.records++
	return item
}

// appendSetHead appends a set record of key k up to its value of n
// bytes: the value and its CRLF follow.
func appendSetHead(b []byte, k string, n int) []byte {
	b = resp.AppendBulk(append(b, "*3\r\n$3\r\nset\r\n"...), k)
	return append(strconv.AppendInt(append(b, '$'), int64(n), 10), '\r', '\n')
}

// openRecords is the records of the running transaction.
func (j *journal) openRecords() []byte {
	if j.headRoom {
		return j.open[openHead:]
	}
	return j.open
}

// takeOpen makes the running transaction's records, kept with room before
// them, the pending frame itself when nothing else is pending: a long
// value is not copied again. It reports whether it did.
func (j *journal) takeOpen() bool {
	if !j.headRoom || len(j.pending) > 0 {
		return false
	}
	if j.records > 1 {
		copy(j.open[frameHeaderLen:], recMulti)
		j.pending = append(j.open, recExec...)
	} else {
		j.pending = j.open[len(recMulti):]
	}
	j.open, j.headRoom = nil, false
	return true
}

// adoptSetItem is addSetItem for a value handed over in a Room: the
// records go around the value in the room's buffer, which becomes open,
// and the value is not copied. The transaction's records before it move
// in front of it. It reports false, changing nothing, when they do not
// fit in the room.
func (j *journal) adoptSetItem(k string, m Meta, r *Room) (string, bool) {
	n := metaHeader + len(m.Payload)
	head := appendSetHead(make([]byte, 0, 64+len(k)), k, n)
	prior := j.openRecords()
	start := r.Off - metaHeader - len(head) - len(prior) - openHead
	end := r.Off + r.Len
	if start < 0 || len(r.Buf)-end < 2 {
		return "", false
	}
	open := r.Buf[start:end:len(r.Buf)]
	copy(open[openHead:], prior)
	copy(open[openHead+len(prior):], head)
	item := r.item(m)
	j.open, j.headRoom = append(open, '\r', '\n'), true
	j.records++
	return item, true
}
