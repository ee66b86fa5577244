package commands

import (
	"unsafe"

	"github.com/qlessd/qlessd/store"
)

func registerHashes(t *Table) {
	const r, w = ReadOnly, Write
	t.Add(
		&Cmd{Name: "hget", Arity: 3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHGet},
		&Cmd{Name: "hset", Arity: -4, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHSet},
		&Cmd{Name: "hmset", Arity: -4, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHMSet},
		&Cmd{Name: "hsetnx", Arity: 4, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHSetNX},
		&Cmd{Name: "hmget", Arity: -3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHMGet},
		&Cmd{Name: "hgetall", Arity: 2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHGetAll},
		&Cmd{Name: "hkeys", Arity: 2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHKeys},
		&Cmd{Name: "hvals", Arity: 2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHVals},
		&Cmd{Name: "hdel", Arity: -3, Flags: w | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHDel},
		&Cmd{Name: "hexists", Arity: 3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHExists},
		&Cmd{Name: "hlen", Arity: 2, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHLen},
		&Cmd{Name: "hstrlen", Arity: 3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHStrLen},
		&Cmd{Name: "hincrby", Arity: 4, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHIncrBy},
		&Cmd{Name: "hincrbyfloat", Arity: 4, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHIncrByFloat},
		&Cmd{Name: "hscan", Arity: -3, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHScan},
		&Cmd{Name: "hrandfield", Arity: -2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdHRandField},
	)
}

func cmdHGet(c *Ctx, args [][]byte) {
	v, ok, err := c.Tx.HGet(c.Tx.KeyString(args[1]), string(args[2]))
	switch {
	case err != nil:
		c.StoreErr(err)
	case !ok:
		c.W.WriteNull()
	default:
		c.W.WriteBulkString(v)
	}
}

func cmdHSet(c *Ctx, args [][]byte) {
	if n, ok := hsSetPairs(c, "hset", args); ok {
		c.W.WriteInt(int64(n))
	}
}

func cmdHMSet(c *Ctx, args [][]byte) {
	if _, ok := hsSetPairs(c, "hmset", args); ok {
		c.OK()
	}
}

// hsSetPairs stores HSET's field/value pairs, replying on error.
func hsSetPairs(c *Ctx, name string, args [][]byte) (int, bool) {
	if len(args)%2 != 0 {
		c.Error(WrongArgs(name))
		return 0, false
	}
	var buf [32]string
	n, err := c.Tx.HSet(c.Tx.KeyString(args[1]), argViews(buf[:0], args[2:])...)
	if err != nil {
		c.StoreErr(err)
		return 0, false
	}
	return n, true
}

func cmdHSetNX(c *Ctx, args [][]byte) {
	c.BoolReply(c.Tx.HSetNX(c.Tx.KeyString(args[1]), string(args[2]), string(args[3])))
}

func cmdHMGet(c *Ctx, args [][]byte) {
	// HMGet fails (WRONGTYPE) before its first answer, so the array
	// header goes out with the first one.
	started := false
	err := c.Tx.HMGet(c.Tx.KeyString(args[1]), args[2:], func(v string, ok bool) {
		if !started {
			c.W.WriteArray(len(args) - 2)
			started = true
		}
		if ok {
			c.W.WriteBulkString(v)
		} else {
			c.W.WriteNull()
		}
	})
	if err != nil {
		c.StoreErr(err)
	}
}

// writeHash replies with a hash's fields, values or both, in the hash's own
// order: insertion order for a listpack, as Redis.
func writeHash(c *Ctx, key []byte, fields, values bool) {
	pairs, err := c.Tx.HGetAll(string(key))
	if err != nil {
		c.StoreErr(err)
		return
	}
	per := 0
	if fields {
		per++
	}
	if values {
		per++
	}
	if per == 2 {
		c.W.WriteMap(len(pairs) / 2)
	} else {
		c.W.WriteArray(len(pairs) / 2)
	}
	for i := 0; i < len(pairs); i += 2 {
		if fields {
			c.W.WriteBulkString(pairs[i])
		}
		if values {
			c.W.WriteBulkString(pairs[i+1])
		}
	}
}

func cmdHGetAll(c *Ctx, args [][]byte) { writeHash(c, args[1], true, true) }
func cmdHKeys(c *Ctx, args [][]byte)   { writeHash(c, args[1], true, false) }
func cmdHVals(c *Ctx, args [][]byte)   { writeHash(c, args[1], false, true) }

func cmdHDel(c *Ctx, args [][]byte) {
	var buf [16]string
	c.IntReply(c.Tx.HDel(c.Tx.KeyString(args[1]), argViews(buf[:0], args[2:])...))
}

func cmdHExists(c *Ctx, args [][]byte) {
	c.BoolReply(c.Tx.HExists(c.Tx.KeyString(args[1]), string(args[2])))
}

func cmdHLen(c *Ctx, args [][]byte) {
	c.IntReply(c.Tx.HLen(c.Tx.KeyString(args[1])))
}

func cmdHStrLen(c *Ctx, args [][]byte) {
	v, _, err := c.Tx.HGet(c.Tx.KeyString(args[1]), string(args[2]))
	if err != nil {
		c.StoreErr(err)
		return
	}
	c.W.WriteInt(int64(len(v)))
}

func cmdHIncrBy(c *Ctx, args [][]byte) {
	incr, ok := ParseInt(args[3])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	n, err := c.Tx.HIncrBy(c.Tx.KeyString(args[1]), string(args[2]), incr)
	switch err {
	case nil:
		c.W.WriteInt(n)
	case store.ErrHashNotInt:
		c.Error(ErrHashNotInt)
	case store.ErrOverflow:
		c.Error(ErrOverflow)
	default:
		c.StoreErr(err)
	}
}

// hashFloatErr carries an HINCRBYFLOAT error reply out of the store update.
type hashFloatErr string

func (e hashFloatErr) Error() string { return string(e) }

func cmdHIncrByFloat(c *Ctx, args [][]byte) {
	incr, ok := parseLongDouble(args[3])
	if !ok {
		c.Error(ErrNotFloat)
		return
	}
	if incr.IsInf() {
		c.Error(ErrNaNOrInf)
		return
	}
	v, err := c.Tx.HUpdate(c.Tx.KeyString(args[1]), string(args[2]), func(old string, exists bool) (string, error) {
		sum := newLongDouble()
		if exists {
			cur, ok := parseLongDouble([]byte(old))
			if !ok {
				return "", hashFloatErr(ErrHashNotFloat)
			}
			sum.Set(cur)
		}
		if sum, ok = addLongDouble(sum, incr); !ok {
			return "", hashFloatErr(ErrIncrNaN)
		}
		return formatLongDouble(sum), nil
	})
	if e, ok := err.(hashFloatErr); ok {
		c.Error(string(e))
		return
	}
	if err != nil {
		c.StoreErr(err)
		return
	}
	c.W.WriteBulkString(v)
}

func cmdHScan(c *Ctx, args [][]byte) {
	cursor, ok := ParseCursor(args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	key := c.Tx.KeyString(args[1])
	compact, err := c.Tx.HCompact(key)
	if err != nil {
		c.StoreErr(err)
		return
	}
	if n, _ := c.Tx.HLen(key); n == 0 {
		WriteScanReply(c, 0, nil)
		return
	}
	opts, ok := parseScanOptions(c, args[3:], false)
	if !ok {
		return
	}
	var out []string
	if compact {
		// A listpack hash is returned whole whatever the cursor and COUNT.
		c.Tx.HIterate(key, "", func(f, v string) bool {
			if opts.match(f) {
				out = append(out, f, v)
			}
			return true
		})
		WriteScanReply(c, 0, out)
		return
	}
	from, ok := elemCursorStart(cursor)
	if !ok {
		WriteScanReply(c, 0, nil)
		return
	}
	pg := elemPager{start: cursor, count: opts.count}
	c.Tx.HIterate(key, from, func(f, v string) bool {
		if !pg.take(f) {
			return false
		}
		if opts.match(f) {
			out = append(out, f, v)
		}
		return true
	})
	WriteScanReply(c, pg.next, out)
}

// boolInt is a flag as Redis replies and reports it: 1 or 0.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// argViews appends args to buf as strings sharing their bytes, for the store
// calls that copy whatever they keep (HSet, HDel): the arguments of a
// client's command live in a buffer the connection reuses. qless writes a
// job as one HSET of a dozen fields, so not copying each one counts.
func argViews(buf []string, args [][]byte) []string {
	for _, a := range args {
		buf = append(buf, argView(a))
	}
	return buf
}

// argView is one argument as a string sharing its bytes (see argViews).
func argView(a []byte) string { return unsafe.String(unsafe.SliceData(a), len(a)) }
