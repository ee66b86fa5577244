package commands

import (
	"time"

	"github.com/qlessd/qlessd/store"
)

func registerZSetPops(t *Table) {
	t.Add(
		&Cmd{Name: "zpopmin", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZPop},
		&Cmd{Name: "zpopmax", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZPop},
		&Cmd{Name: "bzpopmin", Arity: -3, Flags: Write | NoScript | Fast | Blocking, FirstKey: 1, LastKey: -2, Step: 1, Run: cmdBZPop, ServeKey: serveKeyBeforeTimeout},
		&Cmd{Name: "bzpopmax", Arity: -3, Flags: Write | NoScript | Fast | Blocking, FirstKey: 1, LastKey: -2, Step: 1, Run: cmdBZPop, ServeKey: serveKeyBeforeTimeout},
		&Cmd{Name: "zmpop", Arity: -4, Flags: Write, Run: cmdZMPop},
		&Cmd{Name: "bzmpop", Arity: -5, Flags: Write | Blocking, Run: cmdBZMPop, ServeKey: serveKeyCounted},
	)
}

// popEntries removes and returns up to n entries from the low (or, with
// max, the high) end.
func popEntries(z *store.ZSet, n int64, max bool) []store.Entry {
	if n > z.Len() {
		n = z.Len()
	}
	var es []store.Entry
	if n > 0 {
		es = make([]store.Entry, 0, n)
		z.RangeByRank(0, n-1, max, func(e store.Entry) bool { es = append(es, e); return true })
	}
	for _, e := range es {
		z.RemoveEntry(e)
	}
	z.Flush()
	return es
}

func cmdZPop(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	count := int64(1)
	if len(args) == 3 {
		n, ok := ParseInt(args[2])
		if !ok || n < 0 {
			c.Error(ErrPositive)
			return
		}
		count = n
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	if !z.Exists() || count == 0 {
		c.W.WriteArray(0)
		return
	}
	es := popEntries(z, count, c.Name == "zpopmax")
	if len(args) == 2 {
		// Without a count the one pair is the reply itself, in RESP3 too.
		c.W.WriteArray(2)
		c.W.WriteBulkString(es[0].Member)
		writeScore(c, es[0].Score)
		return
	}
	writeEntries(c, es, true)
}

// parseBlockTimeout reads a blocking command's timeout, replying the error
// itself when the argument is bad.
func parseBlockTimeout(c *Ctx, b []byte) (time.Duration, bool) {
	d, msg := ParseBlockTimeout(b)
	if msg != "" {
		c.Error(msg)
		return 0, false
	}
	return d, true
}

// cmdBZPop serves BZPOPMIN and BZPOPMAX: the first non-empty key in
// argument order gives [key, member, score]; with none, the client waits.
func cmdBZPop(c *Ctx, args [][]byte) {
	timeout, ok := parseBlockTimeout(c, args[len(args)-1])
	if !ok {
		return
	}
	keys := args[1 : len(args)-1]
	for _, k := range keys {
		z, err := c.Tx.OpenZSet(string(k))
		if err == store.ErrWrongType && c.Retrying {
			continue // as Redis, a waiter stays blocked while the key holds another type
		}
		if err != nil {
			c.StoreErr(err)
			return
		}
		if z.Len() == 0 {
			continue
		}
		es := popEntries(z, 1, c.Name == "bzpopmax")
		c.W.WriteArray(3)
		c.W.WriteBulk(k)
		c.W.WriteBulkString(es[0].Member)
		writeScore(c, es[0].Score)
		return
	}
	blockOrNull(c, keys, timeout)
}

// blockOrNull asks to wait for keys, or replies with a null array when the
// command may not wait (script, MULTI) or its time is up.
func blockOrNull(c *Ctx, keys [][]byte, timeout time.Duration) {
	if !c.CanBlock() {
		c.W.WriteNullArray()
		return
	}
	block(c, keys, timeout)
}

// zmpopArgs is a parsed "numkeys key... MIN|MAX [COUNT n]" tail.
type zmpopArgs struct {
	keys  [][]byte
	max   bool
	count int64
}

func parseZMPop(c *Ctx, args [][]byte) (zmpopArgs, bool) {
	var p zmpopArgs
	n, ok := ParseInt(args[0])
	if !ok || n <= 0 {
		c.Error(ErrNumKeysGtZero)
		return p, false
	}
	if n > int64(len(args)-2) {
		c.Error(ErrSyntax)
		return p, false
	}
	p.keys = args[1 : 1+n]
	rest := args[1+n:]
	switch {
	case EqualFold(rest[0], "min"):
	case EqualFold(rest[0], "max"):
		p.max = true
	default:
		c.Error(ErrSyntax)
		return p, false
	}
	p.count = 1
	seenCount := false
	for j := 1; j < len(rest); j++ {
		if !seenCount && EqualFold(rest[j], "count") && j+1 < len(rest) {
			v, ok := ParseInt(rest[j+1])
			if !ok || v <= 0 {
				c.Error(ErrCountGreater)
				return p, false
			}
			p.count, seenCount = v, true
			j++
			continue
		}
		c.Error(ErrSyntax)
		return p, false
	}
	return p, true
}

// zmpopFirst pops from the first non-empty key; it reports false after
// replying WRONGTYPE, and found false when every key is empty.
func zmpopFirst(c *Ctx, p zmpopArgs) (found, ok bool) {
	for _, k := range p.keys {
		z, ok := openZSet(c, k)
		if !ok {
			return false, false
		}
		if z.Len() == 0 {
			continue
		}
		es := popEntries(z, p.count, p.max)
		c.W.WriteArray(2)
		c.W.WriteBulk(k)
		c.W.WriteArray(len(es))
		for _, e := range es {
			c.W.WriteArray(2)
			c.W.WriteBulkString(e.Member)
			writeScore(c, e.Score)
		}
		return true, true
	}
	return false, true
}

func cmdZMPop(c *Ctx, args [][]byte) {
	p, ok := parseZMPop(c, args[1:])
	if !ok {
		return
	}
	if found, ok := zmpopFirst(c, p); ok && !found {
		c.W.WriteNullArray()
	}
}

// cmdBZMPop checks its timeout after the other arguments, as Redis does.
func cmdBZMPop(c *Ctx, args [][]byte) {
	p, ok := parseZMPop(c, args[2:])
	if !ok {
		return
	}
	timeout, ok := parseBlockTimeout(c, args[1])
	if !ok {
		return
	}
	if found, ok := zmpopFirst(c, p); ok && !found {
		blockOrNull(c, p.keys, timeout)
	}
}
