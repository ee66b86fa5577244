package commands

import (
	"math/rand/v2"
	"strconv"
	"sync"
)

// SCAN-family cursors. A cursor names the first name (key, field, member)
// of the next page in byte order. Names are arbitrary strings but cursors
// are 64-bit integers, so a cursor carries two things:
//
//	bits 63..32  the first 4 bytes of the name (zero padded)
//	bits 31..29  how many of those bytes are real (0-4)
//	bits 28..0   an id (never 0) into a bounded table of recent cursors
//
// While the id is in the table the scan resumes at the exact name. When it
// has been evicted (or the server restarted, or a client invented the
// number) the scan resumes at the 4-byte prefix instead and does not stop
// again until it has passed every name with that prefix. Either way every
// name present for the whole scan is returned at least once, the scan
// always advances, and any number is accepted.
const (
	cursorIDBits  = 29
	cursorPrefix  = 4
	cursorTableSz = 1 << 16
)

type cursorTable struct {
	mu     sync.Mutex
	nextID uint64
	names  map[uint64]string
	ring   []uint64 // cursors in the order they were made, for eviction
	pos    int
}

// Ids start at a random point so that cursors a client kept across a
// restart are unlikely to name entries of the new process.
var cursors = &cursorTable{
	names:  map[uint64]string{},
	ring:   make([]uint64, cursorTableSz),
	nextID: rand.Uint64N(1 << cursorIDBits),
}

// SaveCursor returns a new cursor that resumes at name.
func SaveCursor(name string) uint64 {
	n := len(name)
	if n > cursorPrefix {
		n = cursorPrefix
	}
	var prefix uint64
	for i := 0; i < cursorPrefix; i++ {
		prefix <<= 8
		if i < n {
			prefix |= uint64(name[i])
		}
	}
	t := cursors
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextID++
	if t.nextID >= 1<<cursorIDBits {
		t.nextID = 1
	}
	cur := prefix<<32 | uint64(n)<<cursorIDBits | t.nextID
	if old := t.ring[t.pos]; old != 0 {
		delete(t.names, old)
	}
	t.ring[t.pos] = cur
	t.pos = (t.pos + 1) % len(t.ring)
	t.names[cur] = name
	return cur
}

// ResumeCursor returns where a scan continues: the exact name, or (exact
// false) a prefix whose names must all be passed before the next stop.
func ResumeCursor(cur uint64) (from string, exact bool) {
	if cur == 0 {
		return "", true
	}
	t := cursors
	t.mu.Lock()
	name, ok := t.names[cur]
	t.mu.Unlock()
	if ok {
		return name, true
	}
	n := int(cur>>cursorIDBits) & 7
	if n > cursorPrefix {
		n = cursorPrefix
	}
	b := make([]byte, n)
	for i := 0; i < n; i++ {
		b[i] = byte(cur >> (56 - 8*i))
	}
	return string(b), false
}

// CursorMayStop reports whether a page that resumed at (from, exact) may
// end before name: a page resumed from a bare prefix must pass every name
// sharing that prefix, or it could stop at the same cursor forever.
func CursorMayStop(from string, exact bool, name string) bool {
	if exact {
		return true
	}
	p := name
	if len(p) > cursorPrefix {
		p = p[:cursorPrefix]
	}
	return p != from
}

// ParseCursor reads a cursor as Redis does (strtoul in base 10: a sign is
// allowed and "-1" wraps; no leading space, no trailing bytes, no overflow).
func ParseCursor(b []byte) (uint64, bool) {
	s := string(b)
	if s == "" {
		return 0, true
	}
	if isSpace(s[0]) {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg = true
		s = s[1:]
	}
	if s == "" {
		// strtoul parsed nothing: the end pointer stays at the start.
		return 0, len(b) == 0
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// WriteScanReply writes a SCAN-family reply: the next cursor and a page.
func WriteScanReply(c *Ctx, next uint64, items []string) {
	c.W.WriteArray(2)
	c.W.WriteBulkString(strconv.FormatUint(next, 10))
	c.W.WriteArray(len(items))
	for _, it := range items {
		c.W.WriteBulkString(it)
	}
}
