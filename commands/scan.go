package commands

import (
	"strings"

	"github.com/qlessd/qlessd/store"
)

// scanOptions are the MATCH, COUNT and TYPE options of the SCAN family.
type scanOptions struct {
	match    func(string) bool
	count    int64
	typeName string
	hasType  bool
}

// parseScanOptions reads options from args; withType allows TYPE (SCAN
// only, not HSCAN and the like).
func parseScanOptions(c *Ctx, args [][]byte, withType bool) (scanOptions, bool) {
	o := scanOptions{match: func(string) bool { return true }, count: 10}
	for i := 0; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch {
		case EqualFold(args[i], "count") && more:
			n, ok := ParseInt(args[i+1])
			if !ok {
				c.Error(ErrNotInt)
				return o, false
			}
			if n < 1 {
				c.Error(ErrSyntax)
				return o, false
			}
			o.count = n
		case EqualFold(args[i], "match") && more:
			o.match = keyMatcher(args[i+1])
		case EqualFold(args[i], "type") && withType && more:
			o.typeName, o.hasType = string(args[i+1]), true
		default:
			c.Error(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

func cmdScan(c *Ctx, args [][]byte) {
	cur, ok := ParseCursor(args[1])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	o, ok := parseScanOptions(c, args[2:], true)
	if !ok {
		return
	}
	types := map[string]store.Type{}
	walk := func(from string, fn func(name string) bool) {
		c.Tx.ScanKeys(from, func(k string, t store.Type) bool {
			types[k] = t
			return fn(k)
		})
	}
	keep := func(k string) bool {
		if o.hasType && !strings.EqualFold(o.typeName, types[k].String()) {
			return false
		}
		return o.match(k)
	}
	page, next := ScanPage(cur, o.count, walk, keep)
	WriteScanReply(c, next, page)
}

// ScanPage runs one call of a SCAN-family command over names that walk
// visits in byte order from a starting name. It visits about count names
// (more when resuming from a bare cursor prefix, see CursorMayStop), keeps
// those keep accepts, and returns them with the next cursor (0 at the end).
func ScanPage(cur uint64, count int64, walk func(from string, fn func(name string) bool), keep func(name string) bool) ([]string, uint64) {
	from, exact := ResumeCursor(cur)
	var page []string
	var next uint64
	var visited int64
	walk(from, func(name string) bool {
		if visited >= count && CursorMayStop(from, exact, name) {
			next = SaveCursor(name)
			return false
		}
		visited++
		if keep(name) {
			page = append(page, name)
		}
		return true
	})
	return page, next
}
