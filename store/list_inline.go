package store

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// A short list keeps its elements inside the metadata payload, in order:
//
//	listInlineMark <uvarint count> { <packed element> } [pad]
//
// Redis 7.0 keeps a list in quicklist nodes of at most 8 KB of listpack
// (list-max-listpack-size -2); the limits below keep one inline list within
// one such node and bound the rewrite each push costs. A list kept as items
// has a 16-byte header payload; an inline payload that would be 16 bytes
// long gets one pad byte, so the length alone tells the layouts apart and
// payloads written before inline storage existed still read. A list that
// shrinks to listInlineBackEntries short elements moves back inline; the gap
// between the two limits stops a list at the edge from moving on every push
// and pop.
const (
	listInlineMark        = 'L'
	listInlineMaxEntries  = 128
	listInlineMaxBytes    = 8192
	listInlineBackEntries = 32
	listInlineBackBytes   = 4096
	listItemHeaderLen     = 16
)

// decodeListInline parses an inline payload; a damaged tail is ignored.
func decodeListInline(buf []string, p string) (vals []string, size int) {
	n, i, ok := readUvarint(p, 1)
	if !ok {
		return buf[:0], 0
	}
	vals = buf[:0]
	if want := int(min(n, uint64(len(p)))); cap(vals) < want {
		vals = make([]string, 0, want)
	}
	for uint64(len(vals)) < n {
		v, next, ok := readPacked(p, i)
		if !ok {
			break
		}
		vals = append(vals, v)
		size += next - i
		i = next
	}
	return vals, size
}

func (l *list) inlinePush(v string, left bool) {
	if left {
		l.vals = slices.Insert(l.vals, 0, v)
	} else {
		l.vals = append(l.vals, v)
	}
	l.size += packedSize(v)
	l.h.n++
}

func (l *list) inlinePop(left bool) string {
	var v string
	if left {
		v = l.vals[0]
		l.vals = l.vals[1:]
	} else {
		v = l.vals[len(l.vals)-1]
		l.vals = l.vals[:len(l.vals)-1]
	}
	l.size -= packedSize(v)
	l.h.n--
	return v
}

func (l *list) inlineSet(i int64, v string) {
	l.size += packedSize(v) - packedSize(l.vals[i])
	l.vals[i] = v
}

// inlineKeep keeps only the elements for which keep returns true.
func (l *list) inlineKeep(keep func(i int64) bool) {
	out := make([]string, 0, len(l.vals))
	l.size = 0
	for i, v := range l.vals {
		if keep(int64(i)) {
			out = append(out, v)
			l.size += packedSize(v)
		}
	}
	l.vals = out
	l.h.n = int64(len(out))
}

// spill moves the inline elements to one item each.
func (l *list) spill() {
	l.h = listHeader{head: listStart, n: int64(len(l.vals))}
	vals := l.vals
	l.inline, l.vals, l.size = false, nil, 0
	for i, v := range vals {
		l.set(int64(i), v)
	}
}

// unspill moves a list kept as items back inline when it became short.
func (l *list) unspill() {
	if l.h.n > listInlineBackEntries {
		return
	}
	vals := l.values(0, l.h.n-1)
	size := 0
	for _, v := range vals {
		size += packedSize(v)
	}
	if size > listInlineBackBytes {
		return
	}
	l.tx.deleteRange(l.elemPrefix())
	l.inline, l.vals, l.size = true, vals, size
}

// saveInline writes the metadata item with the elements inside.
func (l *list) saveInline() {
	plen := 1 + uvarintLen(uint64(len(l.vals))) + l.size
	pad := plen == listItemHeaderLen
	b := make([]byte, 0, metaHeader+plen+1)
	b = append(b, byte(TypeList))
	b = binary.BigEndian.AppendUint64(b, uint64(l.meta.ExpireAt))
	b = append(b, listInlineMark)
	b = binary.AppendUvarint(b, uint64(len(l.vals)))
	for _, v := range l.vals {
		b = appendPacked(b, v)
	}
	if pad {
		b = append(b, 0)
	}
	// The expiry is unchanged (a new key has none), so commitColl's
	// shortcut applies.
	l.tx.commitColl(l.key, b)
	l.meta = Meta{Type: TypeList, ExpireAt: l.meta.ExpireAt, Payload: unsafe.String(&b[metaHeader], len(b)-metaHeader)}
	l.existed = true
}

// listPayloadInline reports whether a list's payload holds its elements
// (else they are items).
func listPayloadInline(p string) bool {
	return len(p) != listItemHeaderLen && len(p) > 0 && p[0] == listInlineMark
}
