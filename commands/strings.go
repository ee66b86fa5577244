package commands

import (
	"math"
	"strconv"
)

func registerStrings(t *Table) {
	k1 := func(name string, arity int, flags Flags, run func(*Ctx, [][]byte)) *Cmd {
		return &Cmd{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Run: run}
	}
	t.Add(
		k1("get", 2, ReadOnly|Fast, cmdGet),
		k1("set", -3, Write|DenyOOM, cmdSet),
		k1("setnx", 3, Write|DenyOOM|Fast, cmdSetNX),
		k1("setex", 4, Write|DenyOOM, cmdSetEx),
		k1("psetex", 4, Write|DenyOOM, cmdSetEx),
		k1("getset", 3, Write|DenyOOM|Fast, cmdGetSet),
		k1("getdel", 2, Write|Fast, cmdGetDel),
		k1("getex", -2, Write|Fast, cmdGetEx),
		&Cmd{Name: "mget", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdMGet},
		&Cmd{Name: "mset", Arity: -3, Flags: Write | DenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Run: cmdMSet},
		&Cmd{Name: "msetnx", Arity: -3, Flags: Write | DenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Run: cmdMSet},
		k1("incr", 2, Write|DenyOOM|Fast, cmdIncr),
		k1("decr", 2, Write|DenyOOM|Fast, cmdIncr),
		k1("incrby", 3, Write|DenyOOM|Fast, cmdIncr),
		k1("decrby", 3, Write|DenyOOM|Fast, cmdIncr),
		k1("incrbyfloat", 3, Write|DenyOOM|Fast, cmdIncrByFloat),
		k1("append", 3, Write|DenyOOM|Fast, cmdAppend),
		k1("strlen", 2, ReadOnly|Fast, cmdStrlen),
		k1("getrange", 4, ReadOnly, cmdGetRange),
		k1("substr", 4, ReadOnly, cmdGetRange),
		k1("setrange", 4, Write|DenyOOM, cmdSetRange),
		&Cmd{Name: "lcs", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdLCS},
	)
	registerBits(t)
}

// formatInt is strconv.FormatInt in base 10.
func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// maxStringLen is Redis's default proto-max-bulk-len (512MB).
const maxStringLen = 512 * 1024 * 1024

// getString reads a string key, writing WRONGTYPE on another type. done is
// true when a reply was written.
func getString(c *Ctx, key []byte) (val string, ok bool, done bool) {
	v, ok, err := c.Tx.GetString(string(key))
	if err != nil {
		c.StoreErr(err)
		return "", false, true
	}
	return v, ok, false
}

func cmdGet(c *Ctx, args [][]byte) {
	v, ok, done := getString(c, args[1])
	switch {
	case done:
	case !ok:
		c.W.WriteNull()
	default:
		c.W.WriteBulkString(v)
	}
}

func cmdGetSet(c *Ctx, args [][]byte) {
	v, ok, done := getString(c, args[1])
	if done {
		return
	}
	c.Tx.SetString(c.Tx.KeyString(args[1]), string(args[2]), 0, false)
	writeOptString(c, v, ok)
}

func cmdGetDel(c *Ctx, args [][]byte) {
	v, ok, done := getString(c, args[1])
	if done {
		return
	}
	if ok {
		c.Tx.Delete(c.Tx.KeyString(args[1]))
	}
	writeOptString(c, v, ok)
}

func writeOptString(c *Ctx, v string, ok bool) {
	if ok {
		c.W.WriteBulkString(v)
	} else {
		c.W.WriteNull()
	}
}

func cmdMGet(c *Ctx, args [][]byte) {
	c.W.WriteArray(len(args) - 1)
	for _, k := range args[1:] {
		v, ok, err := c.Tx.GetString(string(k))
		if err != nil || !ok {
			c.W.WriteNull()
			continue
		}
		c.W.WriteBulkString(v)
	}
}

// cmdMSet serves MSET and MSETNX.
func cmdMSet(c *Ctx, args [][]byte) {
	if len(args)%2 == 0 {
		c.Error(WrongArgs(c.Name))
		return
	}
	nx := c.Name == "msetnx"
	if nx {
		for i := 1; i < len(args); i += 2 {
			if c.Tx.Exists(string(args[i])) {
				c.W.WriteInt(0)
				return
			}
		}
	}
	for i := 1; i < len(args); i += 2 {
		c.Tx.SetString(string(args[i]), string(args[i+1]), 0, false)
	}
	if nx {
		c.W.WriteInt(1)
	} else {
		c.OK()
	}
}

// cmdIncr serves INCR, DECR, INCRBY and DECRBY.
func cmdIncr(c *Ctx, args [][]byte) {
	by := int64(1)
	if len(args) == 3 {
		n, ok := ParseInt(args[2])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		by = n
	}
	if c.Name == "decr" || c.Name == "decrby" {
		if by == math.MinInt64 {
			c.Error(ErrDecrOverflow)
			return
		}
		by = -by
	}
	key := c.Tx.KeyString(args[1])
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	var cur int64
	if exists {
		n, ok := ParseInt([]byte(v))
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		cur = n
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		c.Error(ErrOverflow)
		return
	}
	cur += by
	c.Tx.SetString(key, formatInt(cur), 0, true)
	c.W.WriteInt(cur)
}

func cmdIncrByFloat(c *Ctx, args [][]byte) {
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	cur := newLongDouble()
	if exists {
		p, ok := parseLongDouble([]byte(v))
		if !ok {
			c.Error(ErrNotFloat)
			return
		}
		cur.Set(p)
	}
	by, ok := parseLongDouble(args[2])
	if !ok {
		c.Error(ErrNotFloat)
		return
	}
	sum, ok := addLongDouble(cur, by)
	if !ok {
		c.Error(ErrIncrNaN)
		return
	}
	s := formatLongDouble(sum)
	c.Tx.SetString(c.Tx.KeyString(args[1]), s, 0, true)
	c.W.WriteBulkString(s)
}

func cmdAppend(c *Ctx, args [][]byte) {
	v, _, done := getString(c, args[1])
	if done {
		return
	}
	if int64(len(v))+int64(len(args[2])) > maxStringLen {
		c.Error(ErrStringTooLong)
		return
	}
	nv := v + string(args[2])
	c.Tx.SetString(c.Tx.KeyString(args[1]), nv, 0, true)
	c.W.WriteInt(int64(len(nv)))
}

func cmdStrlen(c *Ctx, args [][]byte) {
	v, _, done := getString(c, args[1])
	if !done {
		c.W.WriteInt(int64(len(v)))
	}
}

// cmdGetRange serves GETRANGE (and its old name SUBSTR) with Redis's
// clamping of negative and out-of-range offsets.
func cmdGetRange(c *Ctx, args [][]byte) {
	start, ok1 := ParseInt(args[2])
	end, ok2 := ParseInt(args[3])
	if !ok1 || !ok2 {
		c.Error(ErrNotInt)
		return
	}
	v, _, done := getString(c, args[1])
	if done {
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.W.WriteBulkString("")
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.WriteBulkString("")
		return
	}
	c.W.WriteBulkString(v[start : end+1])
}

func cmdSetRange(c *Ctx, args [][]byte) {
	offset, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if offset < 0 {
		c.Error(ErrOffsetRange)
		return
	}
	val := args[3]
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	if len(val) == 0 {
		c.W.WriteInt(int64(len(v)))
		return
	}
	if offset > maxStringLen-int64(len(val)) {
		c.Error(ErrStringTooLong)
		return
	}
	b := []byte(v)
	if need := int(offset) + len(val); need > len(b) {
		b = append(b, make([]byte, need-len(b))...)
	}
	copy(b[offset:], val)
	c.Tx.SetString(c.Tx.KeyString(args[1]), string(b), 0, exists)
	c.W.WriteInt(int64(len(b)))
}
