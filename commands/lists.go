package commands

import "github.com/qlessd/qlessd/store"

func registerLists(t *Table) {
	one := func(name string, arity int, flags Flags, run func(*Ctx, [][]byte)) *Cmd {
		return &Cmd{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Run: run}
	}
	two := func(name string, arity int, flags Flags, run func(*Ctx, [][]byte)) *Cmd {
		return &Cmd{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 2, Step: 1, Run: run}
	}
	t.Add(
		one("lpush", -3, Write|DenyOOM|Fast, cmdPush(true, false)),
		one("rpush", -3, Write|DenyOOM|Fast, cmdPush(false, false)),
		one("lpushx", -3, Write|DenyOOM|Fast, cmdPush(true, true)),
		one("rpushx", -3, Write|DenyOOM|Fast, cmdPush(false, true)),
		one("lpop", -2, Write|Fast, cmdPop(true)),
		one("rpop", -2, Write|Fast, cmdPop(false)),
		one("llen", 2, ReadOnly|Fast, cmdLLen),
		one("lrange", 4, ReadOnly, cmdLRange),
		one("lindex", 3, ReadOnly, cmdLIndex),
		one("lset", 4, Write|DenyOOM, cmdLSet),
		one("lrem", 4, Write, cmdLRem),
		one("ltrim", 4, Write, cmdLTrim),
		one("linsert", 5, Write|DenyOOM, cmdLInsert),
		one("lpos", -3, ReadOnly, cmdLPos),
		two("rpoplpush", 3, Write|DenyOOM, cmdRPopLPush),
		two("lmove", 5, Write|DenyOOM, cmdLMove),
		&Cmd{Name: "lmpop", Arity: -4, Flags: Write, Run: cmdLMPop},
	)
	registerBlockingLists(t)
}

func cmdPush(left, onlyExisting bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		var buf [8]string
		c.IntReply(c.Tx.ListPush(c.Tx.KeyString(args[1]), argViews(buf[:0], args[2:]), left, onlyExisting))
	}
}

// cmdPop is LPOP and RPOP. With a count the reply is an array (a null
// array for a missing key); without, a bulk string or null.
func cmdPop(left bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		if len(args) > 3 {
			c.Error(WrongArgs(c.Name))
			return
		}
		hasCount := len(args) == 3
		count := int64(1)
		if hasCount {
			n, ok := ParseInt(args[2])
			if !ok || n < 0 {
				c.Error(ErrPositive)
				return
			}
			count = n
		}
		vals, ok, err := c.Tx.ListPop(c.Tx.KeyString(args[1]), left, count)
		switch {
		case err != nil:
			c.StoreErr(err)
		case !ok && hasCount:
			c.W.WriteNullArray()
		case !ok:
			c.W.WriteNull()
		case hasCount:
			writeStrings(c, vals)
		default:
			c.W.WriteBulkString(vals[0])
		}
	}
}

func writeStrings(c *Ctx, vals []string) {
	c.W.WriteArray(len(vals))
	for _, v := range vals {
		c.W.WriteBulkString(v)
	}
}

func cmdLLen(c *Ctx, args [][]byte) {
	c.IntReply(c.Tx.ListLen(c.Tx.KeyString(args[1])))
}

// parseInts parses integer arguments, replying the Redis error for the
// first that is not one.
func parseInts(c *Ctx, args ...[]byte) ([]int64, bool) {
	out := make([]int64, len(args))
	for i, a := range args {
		n, ok := ParseInt(a)
		if !ok {
			c.Error(ErrNotInt)
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func cmdLRange(c *Ctx, args [][]byte) {
	r, ok := parseInts(c, args[2], args[3])
	if !ok {
		return
	}
	vals, err := c.Tx.ListRange(c.Tx.KeyString(args[1]), r[0], r[1])
	if err != nil {
		c.StoreErr(err)
		return
	}
	writeStrings(c, vals)
}

// listExists checks key's type before an index argument is parsed, the
// order LINDEX and LSET follow; it replies itself unless it returns true.
func listExists(c *Ctx, key string, missing func()) bool {
	n, err := c.Tx.ListLen(key)
	switch {
	case err != nil:
		c.StoreErr(err)
		return false
	case n == 0:
		missing()
		return false
	}
	return true
}

func cmdLIndex(c *Ctx, args [][]byte) {
	key := c.Tx.KeyString(args[1])
	if !listExists(c, key, c.W.WriteNull) {
		return
	}
	r, ok := parseInts(c, args[2])
	if !ok {
		return
	}
	v, ok, err := c.Tx.ListIndex(key, r[0])
	switch {
	case err != nil:
		c.StoreErr(err)
	case !ok:
		c.W.WriteNull()
	default:
		c.W.WriteBulkString(v)
	}
}

func cmdLSet(c *Ctx, args [][]byte) {
	key := c.Tx.KeyString(args[1])
	if !listExists(c, key, func() { c.Error(ErrNoSuchKey) }) {
		return
	}
	r, ok := parseInts(c, args[2])
	if !ok {
		return
	}
	if err := c.Tx.ListSet(key, r[0], string(args[3])); err != nil {
		c.StoreErr(err)
		return
	}
	c.OK()
}

func cmdLRem(c *Ctx, args [][]byte) {
	r, ok := parseInts(c, args[2])
	if !ok {
		return
	}
	c.IntReply(c.Tx.ListRem(c.Tx.KeyString(args[1]), r[0], string(args[3])))
}

func cmdLTrim(c *Ctx, args [][]byte) {
	r, ok := parseInts(c, args[2], args[3])
	if !ok {
		return
	}
	if err := c.Tx.ListTrim(c.Tx.KeyString(args[1]), r[0], r[1]); err != nil {
		c.StoreErr(err)
		return
	}
	c.OK()
}

func cmdLInsert(c *Ctx, args [][]byte) {
	var before bool
	switch {
	case EqualFold(args[2], "before"):
		before = true
	case EqualFold(args[2], "after"):
	default:
		c.Error(ErrSyntax)
		return
	}
	c.IntReply(c.Tx.ListInsert(c.Tx.KeyString(args[1]), before, string(args[3]), string(args[4])))
}

// cmdLPos is LPOS key element [RANK rank] [COUNT num] [MAXLEN len]. Without
// COUNT it replies one index or null; with it, an array.
func cmdLPos(c *Ctx, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case EqualFold(args[j], "rank") && more:
			j++
			n, ok := ParseInt(args[j])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			if n == 0 {
				c.Error(ErrRankZero)
				return
			}
			rank = n
		case EqualFold(args[j], "count") && more:
			j++
			n, ok := ParseInt(args[j])
			if !ok || n < 0 {
				c.Error(ErrCountNeg)
				return
			}
			count = n
		case EqualFold(args[j], "maxlen") && more:
			j++
			n, ok := ParseInt(args[j])
			if !ok || n < 0 {
				c.Error(ErrMaxLenNeg)
				return
			}
			maxlen = n
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	limit := count
	if count == -1 {
		limit = 1
	}
	pos, err := c.Tx.ListPos(c.Tx.KeyString(args[1]), string(args[2]), rank, limit, maxlen)
	switch {
	case err != nil:
		c.StoreErr(err)
	case count == -1 && len(pos) == 0:
		c.W.WriteNull()
	case count == -1:
		c.W.WriteInt(pos[0])
	default:
		c.W.WriteArray(len(pos))
		for _, p := range pos {
			c.W.WriteInt(p)
		}
	}
}

// parseWhere reads LEFT or RIGHT; true means left.
func parseWhere(c *Ctx, arg []byte) (left, ok bool) {
	switch {
	case EqualFold(arg, "left"):
		return true, true
	case EqualFold(arg, "right"):
		return false, true
	}
	c.Error(ErrSyntax)
	return false, false
}

func cmdRPopLPush(c *Ctx, args [][]byte) { move(c, args[1], args[2], false, true) }

func cmdLMove(c *Ctx, args [][]byte) {
	from, ok := parseWhere(c, args[3])
	if !ok {
		return
	}
	to, ok := parseWhere(c, args[4])
	if !ok {
		return
	}
	move(c, args[1], args[2], from, to)
}

func move(c *Ctx, src, dst []byte, from, to bool) {
	v, ok, err := c.Tx.ListMove(string(src), string(dst), from, to)
	switch {
	case err != nil:
		c.StoreErr(err)
	case !ok:
		c.W.WriteNull()
	default:
		c.W.WriteBulkString(v)
	}
}

// mpopArgs is the parsed tail of LMPOP and BLMPOP: numkeys key... LEFT|RIGHT
// [COUNT count].
type mpopArgs struct {
	keys  [][]byte
	left  bool
	count int64
}

func parseMPop(c *Ctx, args [][]byte) (mpopArgs, bool) {
	var m mpopArgs
	numkeys, ok := ParseInt(args[0])
	if !ok || numkeys <= 0 {
		c.Error(ErrNumKeysGtZero)
		return m, false
	}
	if numkeys >= int64(len(args))-1 {
		c.Error(ErrSyntax)
		return m, false
	}
	m.keys = args[1 : 1+numkeys]
	rest := args[1+numkeys:]
	if m.left, ok = parseWhere(c, rest[0]); !ok {
		return m, false
	}
	m.count = -1
	for j := 1; j < len(rest); j++ {
		if m.count == -1 && EqualFold(rest[j], "count") && j+1 < len(rest) {
			j++
			n, ok := ParseInt(rest[j])
			if !ok || n <= 0 {
				c.Error(ErrCountGreater)
				return m, false
			}
			m.count = n
			continue
		}
		c.Error(ErrSyntax)
		return m, false
	}
	if m.count == -1 {
		m.count = 1
	}
	return m, true
}

// mpop pops from the first non-empty list of m.keys and replies
// [key, [elements]]. It reports false, having replied nothing, when every
// list is empty. Keys of another type are an error, or passed over when
// skipWrongType (a blocked client retrying).
func mpop(c *Ctx, m mpopArgs, skipWrongType bool) bool {
	for _, k := range m.keys {
		vals, ok, err := c.Tx.ListPop(string(k), m.left, m.count)
		if err == store.ErrWrongType && skipWrongType {
			continue
		}
		if err != nil {
			c.StoreErr(err)
			return true
		}
		if ok {
			c.W.WriteArray(2)
			c.W.WriteBulk(k)
			writeStrings(c, vals)
			return true
		}
	}
	return false
}

func cmdLMPop(c *Ctx, args [][]byte) {
	m, ok := parseMPop(c, args[1:])
	if ok && !mpop(c, m, false) {
		c.W.WriteNullArray()
	}
}
