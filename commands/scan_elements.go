package commands

// Cursors of a paged scan name a position in byte order: 1 + the first
// seven bytes of the next element, zero-padded. Resuming from the trimmed
// prefix never skips an element present for the whole scan; elements sharing
// the prefix may repeat, which SCAN allows.
const hsCursorBytes = 7

func elemCursorOf(elem string) uint64 {
	var v uint64
	for i := 0; i < hsCursorBytes; i++ {
		v <<= 8
		if i < len(elem) {
			v |= uint64(elem[i])
		}
	}
	return v + 1
}

// elemCursorStart returns where a scan resumes, and false when the cursor is
// past every element.
func elemCursorStart(cursor uint64) (string, bool) {
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

// elemPager decides when a page is full: after count elements, at the first
// element whose cursor moves past the page's start cursor.
type elemPager struct {
	start, next uint64
	seen, count int64
}

// take reports whether elem belongs to the page; when it does not, p.next is
// the cursor to reply with.
func (p *elemPager) take(elem string) bool {
	if p.seen >= p.count {
		if c := elemCursorOf(elem); c > p.start {
			p.next = c
			return false
		}
	}
	p.seen++
	return true
}
