package commands

import (
	"strconv"

	"github.com/qlessd/qlessd/store"
)

// Blocking list pops. Each runs like its non-blocking form when data is
// there; otherwise it asks to wait (c.Block) and the server runs it again
// when one of its keys changes, or once more with c.TimedOut set when the
// timeout passes. Where waiting is not allowed (MULTI; scripts, which
// Redis 7.0 only lets call BLMPOP) it replies at once as Redis does: a null
// array for the pops, a null bulk for the moves.
func registerBlockingLists(t *Table) {
	t.Add(
		&Cmd{Name: "blpop", Arity: -3, Flags: Write | NoScript | Blocking, FirstKey: 1, LastKey: -2, Step: 1, Run: cmdBPop(true), ServeKey: serveKeyBeforeTimeout},
		&Cmd{Name: "brpop", Arity: -3, Flags: Write | NoScript | Blocking, FirstKey: 1, LastKey: -2, Step: 1, Run: cmdBPop(false), ServeKey: serveKeyBeforeTimeout},
		&Cmd{Name: "brpoplpush", Arity: 4, Flags: Write | DenyOOM | NoScript | Blocking, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdBRPopLPush},
		&Cmd{Name: "blmove", Arity: 6, Flags: Write | DenyOOM | NoScript | Blocking, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdBLMove},
		&Cmd{Name: "blmpop", Arity: -5, Flags: Write | Blocking, Run: cmdBLMPop, ServeKey: serveKeyCounted},
	)
}

// serveKeyBeforeTimeout narrows "name key... timeout" (BLPOP, BZPOPMIN)
// to the key served (Cmd.ServeKey).
func serveKeyBeforeTimeout(a [][]byte, key string) [][]byte {
	if len(a) > 3 {
		return [][]byte{a[0], []byte(key), a[len(a)-1]}
	}
	return a
}

// serveKeyCounted narrows "name timeout numkeys key... rest" (BLMPOP,
// BZMPOP) to the key served (Cmd.ServeKey).
func serveKeyCounted(a [][]byte, key string) [][]byte {
	n, err := strconv.Atoi(string(a[2]))
	if err != nil || n <= 1 || 3+n > len(a) {
		return a
	}
	out := [][]byte{a[0], a[1], []byte("1"), []byte(key)}
	return append(out, a[3+n:]...)
}

func cmdBPop(left bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		timeout, msg := ParseBlockTimeout(args[len(args)-1])
		if msg != "" {
			c.Error(msg)
			return
		}
		keys := args[1 : len(args)-1]
		for _, k := range keys {
			vals, ok, err := c.Tx.ListPop(string(k), left, 1)
			if err == store.ErrWrongType && c.Retrying {
				continue
			}
			if err != nil {
				c.StoreErr(err)
				return
			}
			if ok {
				c.W.WriteArray(2)
				c.W.WriteBulk(k)
				c.W.WriteBulkString(vals[0])
				return
			}
		}
		if c.CanBlock() {
			block(c, keys, timeout)
			return
		}
		c.W.WriteNullArray()
	}
}

func cmdBRPopLPush(c *Ctx, args [][]byte) { blockingMove(c, args, false, true, args[3]) }

func cmdBLMove(c *Ctx, args [][]byte) {
	from, ok := parseWhere(c, args[3])
	if !ok {
		return
	}
	to, ok := parseWhere(c, args[4])
	if !ok {
		return
	}
	blockingMove(c, args, from, to, args[5])
}

// blockingMove waits on the source only. A destination of another type is
// an error even for a client that waited, as Redis serves it then.
func blockingMove(c *Ctx, args [][]byte, from, to bool, timeoutArg []byte) {
	timeout, msg := ParseBlockTimeout(timeoutArg)
	if msg != "" {
		c.Error(msg)
		return
	}
	src := string(args[1])
	n, err := c.Tx.ListLen(src)
	if err != nil && !c.Retrying {
		c.StoreErr(err)
		return
	}
	if err == nil && n > 0 {
		move(c, args[1], args[2], from, to)
		return
	}
	switch {
	case c.CanBlock():
		block(c, args[1:2], timeout)
	case c.TimedOut:
		c.W.WriteNullArray()
	default:
		c.W.WriteNull()
	}
}

func cmdBLMPop(c *Ctx, args [][]byte) {
	m, ok := parseMPop(c, args[2:])
	if !ok {
		return
	}
	timeout, msg := ParseBlockTimeout(args[1])
	if msg != "" {
		c.Error(msg)
		return
	}
	if mpop(c, m, c.Retrying) {
		return
	}
	if c.CanBlock() {
		block(c, m.keys, timeout)
		return
	}
	c.W.WriteNullArray()
}
