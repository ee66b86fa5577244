package commands

import (
	"sort"
	"strconv"

	"github.com/qlessd/qlessd/store"
)

func registerSets(t *Table) {
	const r, w = ReadOnly, Write
	t.Add(
		&Cmd{Name: "sadd", Arity: -3, Flags: w | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSAdd},
		&Cmd{Name: "srem", Arity: -3, Flags: w | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSRem},
		&Cmd{Name: "smembers", Arity: 2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSMembers},
		&Cmd{Name: "sismember", Arity: 3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSIsMember},
		&Cmd{Name: "smismember", Arity: -3, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSMIsMember},
		&Cmd{Name: "scard", Arity: 2, Flags: r | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSCard},
		&Cmd{Name: "spop", Arity: -2, Flags: w | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSPop},
		&Cmd{Name: "srandmember", Arity: -2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSRandMember},
		&Cmd{Name: "smove", Arity: 4, Flags: w | Fast, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdSMove},
		&Cmd{Name: "sscan", Arity: -3, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSScan},
	)
	registerSetAlgebra(t)
}

// hsWriteMembers replies with a set of members (an array in RESP2).
func hsWriteMembers(c *Ctx, members []string) {
	c.W.WriteSet(len(members))
	for _, m := range members {
		c.W.WriteBulkString(m)
	}
}

// hsWriteArray replies with an array of members in either protocol.
func hsWriteArray(c *Ctx, members []string) {
	c.W.WriteArray(len(members))
	for _, m := range members {
		c.W.WriteBulkString(m)
	}
}

// hsIntsetOrder sorts integer members numerically, the order of an intset.
// Members are byte-ordered otherwise, standing in for hash order.
func hsIntsetOrder(members []string) []string {
	nums := make([]int64, len(members))
	for i, m := range members {
		v, ok := ParseInt([]byte(m))
		if !ok {
			return members
		}
		nums[i] = v
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	out := make([]string, len(nums))
	for i, v := range nums {
		out[i] = strconv.FormatInt(v, 10)
	}
	return out
}

// hsBuiltSetOrder orders members as Redis replies with a set it builds by
// adding them: an intset while all are integers and at most 512.
func hsBuiltSetOrder(members []string) []string {
	if len(members) > 512 {
		return members
	}
	return hsIntsetOrder(members)
}

func cmdSAdd(c *Ctx, args [][]byte) {
	var buf [16]string
	c.IntReply(c.Tx.SAdd(c.Tx.KeyString(args[1]), argViews(buf[:0], args[2:])...))
}

func cmdSRem(c *Ctx, args [][]byte) {
	var buf [16]string
	c.IntReply(c.Tx.SRem(c.Tx.KeyString(args[1]), argViews(buf[:0], args[2:])...))
}

// hsSetMembers returns a key's members in Redis's reply order where it is
// predictable (intsets), replying on a type error.
func hsSetMembers(c *Ctx, key string) ([]string, bool) {
	members, err := SetMembers(c.Tx, key)
	if err != nil {
		c.StoreErr(err)
		return nil, false
	}
	return members, true
}

// SetMembers is a set's members in the order SMEMBERS replies them.
func SetMembers(tx *store.Tx, key string) ([]string, error) {
	members, _, err := tx.SMembers(key)
	if err != nil {
		return nil, err
	}
	if intset, _ := tx.SIntset(key); intset {
		members = hsIntsetOrder(members)
	}
	return members, nil
}

func cmdSMembers(c *Ctx, args [][]byte) {
	if members, ok := hsSetMembers(c, c.Tx.KeyString(args[1])); ok {
		hsWriteMembers(c, members)
	}
}

func cmdSIsMember(c *Ctx, args [][]byte) {
	c.BoolReply(c.Tx.SIsMember(c.Tx.KeyString(args[1]), string(args[2])))
}

func cmdSMIsMember(c *Ctx, args [][]byte) {
	key := c.Tx.KeyString(args[1])
	if _, err := c.Tx.SCard(key); err != nil {
		c.StoreErr(err)
		return
	}
	c.W.WriteArray(len(args) - 2)
	for _, m := range args[2:] {
		ok, _ := c.Tx.SIsMember(key, string(m))
		c.W.WriteInt(boolInt(ok))
	}
}

func cmdSCard(c *Ctx, args [][]byte) {
	c.IntReply(c.Tx.SCard(c.Tx.KeyString(args[1])))
}

func cmdSMove(c *Ctx, args [][]byte) {
	c.BoolReply(c.Tx.SMove(c.Tx.KeyString(args[1]), string(args[2]), string(args[3])))
}

func cmdSScan(c *Ctx, args [][]byte) {
	cursor, ok := ParseCursor(args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	key := c.Tx.KeyString(args[1])
	n, err := c.Tx.SCard(key)
	if err != nil {
		c.StoreErr(err)
		return
	}
	if n == 0 {
		WriteScanReply(c, 0, nil)
		return
	}
	opts, ok := parseScanOptions(c, args[3:], false)
	if !ok {
		return
	}
	var out []string
	if intset, _ := c.Tx.SIntset(key); intset {
		// An intset is returned whole whatever the cursor and COUNT.
		members, _ := hsSetMembers(c, key)
		for _, m := range members {
			if opts.match(m) {
				out = append(out, m)
			}
		}
		WriteScanReply(c, 0, out)
		return
	}
	from, ok := elemCursorStart(cursor)
	if !ok {
		WriteScanReply(c, 0, nil)
		return
	}
	pg := elemPager{start: cursor, count: opts.count}
	c.Tx.SIterate(key, from, func(m string) bool {
		if !pg.take(m) {
			return false
		}
		if opts.match(m) {
			out = append(out, m)
		}
		return true
	})
	WriteScanReply(c, pg.next, out)
}
