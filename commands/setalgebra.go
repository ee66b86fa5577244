package commands

import "sort"

// SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD.

func registerSetAlgebra(t *Table) {
	const r, w = ReadOnly, Write
	t.Add(
		&Cmd{Name: "sinter", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSInter},
		&Cmd{Name: "sunion", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSUnion},
		&Cmd{Name: "sdiff", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSDiff},
		&Cmd{Name: "sinterstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSInter},
		&Cmd{Name: "sunionstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSUnion},
		&Cmd{Name: "sdiffstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdSDiff},
		&Cmd{Name: "sintercard", Arity: -3, Flags: r, Run: cmdSInterCard},
	)
}

// hsOperand is one input set; a missing key is an empty set.
type hsOperand struct {
	key     string
	members []string // byte order
	intset  bool
}

// hsLoadSets reads every key, replying WRONGTYPE if any is not a set.
func hsLoadSets(c *Ctx, keys [][]byte) ([]hsOperand, bool) {
	ops := make([]hsOperand, len(keys))
	for i, k := range keys {
		members, _, err := c.Tx.SMembers(string(k))
		if err != nil {
			c.StoreErr(err)
			return nil, false
		}
		intset, _ := c.Tx.SIntset(string(k))
		ops[i] = hsOperand{key: string(k), members: members, intset: intset}
	}
	return ops, true
}

// hsStoreOrReply stores result at dst (when storing) and replies with its
// size, or replies with the members.
func hsStoreOrReply(c *Ctx, store bool, dst []byte, result []string) {
	if store {
		c.W.WriteInt(int64(c.Tx.SStore(string(dst), result)))
		return
	}
	hsWriteMembers(c, result)
}

// hsSplitStore returns the destination and source keys of a STORE form.
func hsSplitStore(c *Ctx, args [][]byte) (store bool, dst []byte, keys [][]byte) {
	if len(c.Name) > 5 && c.Name[len(c.Name)-5:] == "store" {
		return true, args[1], args[2:]
	}
	return false, nil, args[1:]
}

// hsIntersect walks the smallest set in its order (numeric for an intset),
// keeping members every other set holds, up to limit (0 for all).
func hsIntersect(c *Ctx, ops []hsOperand, limit int) []string {
	for _, op := range ops {
		if len(op.members) == 0 {
			return nil
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return len(ops[i].members) < len(ops[j].members) })
	first := ops[0].members
	if ops[0].intset {
		first = hsIntsetOrder(first)
	}
	var out []string
	for _, m := range first {
		in := true
		for _, op := range ops[1:] {
			if ok, _ := c.Tx.SIsMember(op.key, m); !ok {
				in = false
				break
			}
		}
		if in {
			out = append(out, m)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
	}
	return out
}

func cmdSInter(c *Ctx, args [][]byte) {
	store, dst, keys := hsSplitStore(c, args)
	ops, ok := hsLoadSets(c, keys)
	if !ok {
		return
	}
	hsStoreOrReply(c, store, dst, hsIntersect(c, ops, 0))
}

func cmdSUnion(c *Ctx, args [][]byte) {
	store, dst, keys := hsSplitStore(c, args)
	ops, ok := hsLoadSets(c, keys)
	if !ok {
		return
	}
	seen := map[string]bool{}
	var out []string
	for _, op := range ops {
		for _, m := range op.members {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	hsStoreOrReply(c, store, dst, hsBuiltSetOrder(out))
}

func cmdSDiff(c *Ctx, args [][]byte) {
	store, dst, keys := hsSplitStore(c, args)
	ops, ok := hsLoadSets(c, keys)
	if !ok {
		return
	}
	gone := map[string]bool{}
	for _, op := range ops[1:] {
		for _, m := range op.members {
			gone[m] = true
		}
	}
	var out []string
	for _, m := range ops[0].members {
		if !gone[m] {
			out = append(out, m)
		}
	}
	hsStoreOrReply(c, store, dst, hsBuiltSetOrder(out))
}

func cmdSInterCard(c *Ctx, args [][]byte) {
	numKeys, ok := ParseInt(args[1])
	if !ok || numKeys < 1 {
		c.Error(ErrNumKeysGtZero)
		return
	}
	if numKeys > int64(len(args)-2) {
		c.Error(ErrNumKeysMore)
		return
	}
	limit := int64(0)
	for i := 2 + int(numKeys); i < len(args); i++ {
		if EqualFold(args[i], "limit") && i+1 < len(args) {
			i++
			l, ok := ParseInt(args[i])
			if !ok || l < 0 {
				c.Error(ErrLimitNegative)
				return
			}
			limit = l
			continue
		}
		c.Error(ErrSyntax)
		return
	}
	ops, ok := hsLoadSets(c, args[2:2+numKeys])
	if !ok {
		return
	}
	if limit > int64(1<<31) {
		limit = 0
	}
	c.W.WriteInt(int64(len(hsIntersect(c, ops, int(limit)))))
}
