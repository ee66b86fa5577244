package commands

import (
	"strconv"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// zscanWhole is the size up to which ZSCAN returns a set in one reply with
// cursor 0, as Redis does for a set small enough to be a listpack
// (zset-max-listpack-entries).
const zscanWhole = 128

// cmdZScan: a larger set is walked in member order with the same cursors as
// HSCAN and SSCAN (see elemCursorOf), so members present for the whole scan
// are returned at least once whatever is written between calls.
func cmdZScan(c *Ctx, args [][]byte) {
	cursor, ok := ParseCursor(args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	if !z.Exists() {
		c.W.WriteArray(2)
		c.W.WriteBulkString("0")
		c.W.WriteArray(0)
		return
	}
	o, ok := parseScanOptions(c, args[3:], false)
	if !ok {
		return
	}
	var batch []store.Entry
	next := uint64(0)
	if z.Len() <= zscanWhole {
		z.Ascend(func(e store.Entry) bool { batch = append(batch, e); return true })
	} else {
		from, ok := elemCursorStart(cursor)
		if !ok {
			WriteScanReply(c, 0, nil)
			return
		}
		pg := elemPager{start: cursor, count: o.count}
		z.Members(from, func(e store.Entry) bool {
			if !pg.take(e.Member) {
				return false
			}
			batch = append(batch, e)
			return true
		})
		next = pg.next
	}
	n := 0
	for _, e := range batch {
		if o.match(e.Member) {
			batch[n] = e
			n++
		}
	}
	c.W.WriteArray(2)
	c.W.WriteBulkString(strconv.FormatUint(next, 10))
	// Scores are text here, in RESP3 too: SCAN replies hold strings.
	c.W.WriteArray(2 * n)
	for _, e := range batch[:n] {
		c.W.WriteBulkString(e.Member)
		c.W.WriteBulkString(resp.FormatDouble(e.Score))
	}
}
