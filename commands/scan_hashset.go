package commands

import (
	"math"
	"strconv"
)

// hsScanOpts are the options HSCAN and SSCAN share.
type hsScanOpts struct {
	count   int
	pattern []byte // nil matches everything
}

func (o hsScanOpts) match(s string) bool {
	return o.pattern == nil || GlobMatch(o.pattern, s, false)
}

// hsParseScanOpts reads COUNT and MATCH from args (after the cursor) and
// writes the error reply when they are wrong.
func hsParseScanOpts(c *Ctx, args [][]byte) (hsScanOpts, bool) {
	o := hsScanOpts{count: 10}
	for i := 0; i < len(args); i += 2 {
		more := len(args) - i
		switch {
		case EqualFold(args[i], "count") && more >= 2:
			n, ok := ParseInt(args[i+1])
			if !ok {
				c.Error(ErrNotInt)
				return o, false
			}
			if n < 1 {
				c.Error(ErrSyntax)
				return o, false
			}
			if n > math.MaxInt32 {
				n = math.MaxInt32
			}
			o.count = int(n)
		case EqualFold(args[i], "match") && more >= 2:
			p := args[i+1]
			if len(p) == 1 && p[0] == '*' {
				o.pattern = nil
			} else {
				o.pattern = p
			}
		default:
			c.Error(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// Cursors of a paged scan name a position in byte order: 1 + the first
// seven bytes of the next element, zero-padded. Resuming from the trimmed
// prefix never skips an element present for the whole scan; elements sharing
// the prefix may repeat, which SCAN allows.
const hsCursorBytes = 7

func hsCursorOf(elem string) uint64 {
	var v uint64
	for i := 0; i < hsCursorBytes; i++ {
		v <<= 8
		if i < len(elem) {
			v |= uint64(elem[i])
		}
	}
	return v + 1
}

// hsCursorStart returns where a scan resumes, and false when the cursor is
// past every element.
func hsCursorStart(cursor uint64) (string, bool) {
	if cursor == 0 {
		return "", true
	}
	v := cursor - 1
	if v >= 1<<(8*hsCursorBytes) {
		return "", false
	}
	b := make([]byte, hsCursorBytes)
	for i := hsCursorBytes - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return string(b[:n]), true
}

// hsPager decides when a page is full: after count elements, at the first
// element whose cursor moves past the page's start cursor.
type hsPager struct {
	start, next uint64
	seen, count int
}

// take reports whether elem belongs to the page; when it does not, p.next is
// the cursor to reply with.
func (p *hsPager) take(elem string) bool {
	if p.seen >= p.count {
		if c := hsCursorOf(elem); c > p.start {
			p.next = c
			return false
		}
	}
	p.seen++
	return true
}

// writeScanReply writes [cursor, [elems...]].
func writeScanReply(c *Ctx, cursor uint64, elems []string) {
	c.W.WriteArray(2)
	c.W.WriteBulkString(strconv.FormatUint(cursor, 10))
	c.W.WriteArray(len(elems))
	for _, e := range elems {
		c.W.WriteBulkString(e)
	}
}
