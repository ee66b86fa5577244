package commands

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/qlessd/qlessd/store"
)

// zscanWhole is the size up to which ZSCAN returns a set in one reply with
// cursor 0, as Redis does for a set small enough to be a listpack
// (zset-max-listpack-entries).
const zscanWhole = 128

// cmdZSCAN. A larger set is walked in member order; the cursor holds the
// first 8 bytes of the next member (big endian), so it stays valid across
// writes: members present for the whole scan are returned at least once.
// A batch never ends between members sharing those 8 bytes.
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
		from := ""
		if cursor != 0 {
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], cursor)
			from = strings.TrimRight(string(b[:]), "\x00")
		}
		z.Members(from, func(e store.Entry) bool {
			if int64(len(batch)) >= o.count {
				k := cursorOf(e.Member)
				if k != 0 && k != cursorOf(batch[len(batch)-1].Member) {
					next = k
					return false
				}
			}
			batch = append(batch, e)
			return true
		})
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
	writeEntries(c, batch[:n], true)
}

func cursorOf(member string) uint64 {
	var b [8]byte
	copy(b[:], member)
	return binary.BigEndian.Uint64(b[:])
}
