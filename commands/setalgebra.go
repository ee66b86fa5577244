package commands

import "sort"

// SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD.

func registerSetAlgebra(t *Table) {
	const r, w = ReadOnly, Write
	t.Add(
		&Cmd{Name: "sinter", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsInter, false)},
		&Cmd{Name: "sunion", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsUnion, false)},
		&Cmd{Name: "sdiff", Arity: -2, Flags: r, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsDiff, false)},
		&Cmd{Name: "sinterstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsInter, true)},
		&Cmd{Name: "sunionstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsUnion, true)},
		&Cmd{Name: "sdiffstore", Arity: -3, Flags: w | DenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Run: hsAlgebra(hsDiff, true)},
		&Cmd{Name: "sintercard", Arity: -3, Flags: r, Run: cmdSInterCard},
	)
}

// hsOperand is one input set; a missing key is an empty set.
type hsOperand struct {
	key    string
	card   int64
	intset bool
}

// hsLoadSets checks every key, replying WRONGTYPE if any is not a set.
func hsLoadSets(c *Ctx, keys [][]byte) ([]hsOperand, bool) {
	ops := make([]hsOperand, len(keys))
	for i, k := range keys {
		card, err := c.Tx.SCard(string(k))
		if err != nil {
			c.StoreErr(err)
			return nil, false
		}
		intset, _ := c.Tx.SIntset(string(k))
		ops[i] = hsOperand{key: string(k), card: card, intset: intset}
	}
	return ops, true
}

// members returns the operand's members in byte order.
func (op hsOperand) members(c *Ctx) []string {
	m, _, _ := c.Tx.SMembers(op.key)
	return m
}

// hsInAll reports whether m belongs to every operand.
func hsInAll(c *Ctx, ops []hsOperand, m string) bool {
	for _, op := range ops {
		if ok, _ := c.Tx.SIsMember(op.key, m); !ok {
			return false
		}
	}
	return true
}

// hsAlgebra makes the Run of SINTER, SUNION, SDIFF or, when store is set,
// of their STORE form, which writes the result to its first key.
func hsAlgebra(op func(c *Ctx, ops []hsOperand) []string, store bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		keys := args[1:]
		if store {
			keys = args[2:]
		}
		ops, ok := hsLoadSets(c, keys)
		if !ok {
			return
		}
		result := op(c, ops)
		if store {
			c.W.WriteInt(int64(c.Tx.SStore(string(args[1]), result)))
			return
		}
		hsWriteMembers(c, result)
	}
}

// hsIntersect walks the smallest set in its order (numeric for an intset),
// keeping members every other set holds, up to limit (0 for all).
func hsIntersect(c *Ctx, ops []hsOperand, limit int) []string {
	for _, op := range ops {
		if op.card == 0 {
			return nil
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].card < ops[j].card })
	first := ops[0].members(c)
	if ops[0].intset {
		first = hsIntsetOrder(first)
	}
	var out []string
	for _, m := range first {
		if hsInAll(c, ops[1:], m) {
			out = append(out, m)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
	}
	return out
}

func hsInter(c *Ctx, ops []hsOperand) []string { return hsIntersect(c, ops, 0) }

func hsUnion(c *Ctx, ops []hsOperand) []string {
	seen := map[string]bool{}
	var out []string
	for _, op := range ops {
		for _, m := range op.members(c) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return hsBuiltSetOrder(out)
}

func hsDiff(c *Ctx, ops []hsOperand) []string {
	var out []string
	for _, m := range ops[0].members(c) {
		if !hsInAny(c, ops[1:], m) {
			out = append(out, m)
		}
	}
	return hsBuiltSetOrder(out)
}

// hsInAny reports whether m belongs to any operand.
func hsInAny(c *Ctx, ops []hsOperand, m string) bool {
	for _, op := range ops {
		if ok, _ := c.Tx.SIsMember(op.key, m); ok {
			return true
		}
	}
	return false
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
