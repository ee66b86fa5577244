package commands

import "math/bits"

func registerBits(t *Table) {
	t.Add(
		&Cmd{Name: "setbit", Arity: 4, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSetBit},
		&Cmd{Name: "getbit", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdGetBit},
		&Cmd{Name: "bitcount", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdBitCount},
		&Cmd{Name: "bitpos", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdBitPos},
		&Cmd{Name: "bitfield", Arity: -2, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdBitField},
		&Cmd{Name: "bitfield_ro", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdBitField},
		&Cmd{Name: "bitop", Arity: -4, Flags: Write | DenyOOM, FirstKey: 2, LastKey: -1, Step: 1, Run: cmdBitOp},
	)
}

// parseBitOffset reads a bit offset: a non-negative integer whose byte
// falls within the 512MB string limit.
func parseBitOffset(b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	if !ok || n < 0 || n>>3 >= maxStringLen {
		return 0, false
	}
	return n, true
}

func cmdSetBit(c *Ctx, args [][]byte) {
	off, ok := parseBitOffset(args[2])
	if !ok {
		c.Error(ErrBitOffset)
		return
	}
	on, ok := ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.Error(ErrBitValue)
		return
	}
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	b := []byte(v)
	if need := int(off>>3) + 1; need > len(b) {
		b = append(b, make([]byte, need-len(b))...)
	}
	mask := byte(1) << (7 - uint(off&7))
	old := int64(0)
	if b[off>>3]&mask != 0 {
		old = 1
	}
	if on == 1 {
		b[off>>3] |= mask
	} else {
		b[off>>3] &^= mask
	}
	c.Tx.SetString(string(args[1]), string(b), 0, exists)
	c.W.WriteInt(old)
}

func cmdGetBit(c *Ctx, args [][]byte) {
	off, ok := parseBitOffset(args[2])
	if !ok {
		c.Error(ErrBitOffset)
		return
	}
	v, _, done := getString(c, args[1])
	if done {
		return
	}
	if off>>3 >= int64(len(v)) {
		c.W.WriteInt(0)
		return
	}
	c.W.WriteInt(int64(v[off>>3]>>(7-uint(off&7))) & 1)
}

// bitRange turns BITCOUNT/BITPOS start and end (bytes, or bits when isBit)
// into an inclusive range of bit positions, clamped as Redis clamps them.
// empty is true when the range holds nothing.
func bitRange(start, end int64, strlen int, isBit bool) (lo, hi int64, empty bool) {
	total := int64(strlen)
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, true
	}
	if isBit {
		return start, end, false
	}
	return start << 3, end<<3 + 7, false
}

// parseBitUnit reads the optional BYTE|BIT of BITCOUNT and BITPOS.
func parseBitUnit(b []byte) (isBit, ok bool) {
	switch {
	case EqualFold(b, "bit"):
		return true, true
	case EqualFold(b, "byte"):
		return false, true
	}
	return false, false
}

// cmdBitCount looks the key up before reading its range, as Redis does:
// a missing key counts 0 whatever the other arguments are.
func cmdBitCount(c *Ctx, args [][]byte) {
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	if !exists {
		c.W.WriteInt(0)
		return
	}
	start, end := int64(0), int64(-1)
	isBit := false
	switch len(args) {
	case 2:
	case 4, 5:
		var ok1, ok2 bool
		start, ok1 = ParseInt(args[2])
		end, ok2 = ParseInt(args[3])
		if !ok1 || !ok2 {
			c.Error(ErrNotInt)
			return
		}
		if len(args) == 5 {
			var ok bool
			if isBit, ok = parseBitUnit(args[4]); !ok {
				c.Error(ErrSyntax)
				return
			}
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	lo, hi, empty := bitRange(start, end, len(v), isBit)
	if empty || (start < 0 && end < 0 && start > end) {
		c.W.WriteInt(0)
		return
	}
	var n int64
	for i := lo >> 3; i <= hi>>3; i++ {
		b := v[i]
		if i == lo>>3 {
			b &= 0xff >> uint(lo&7)
		}
		if i == hi>>3 {
			b &= 0xff << uint(7-hi&7)
		}
		n += int64(bits.OnesCount8(b))
	}
	c.W.WriteInt(n)
}

func cmdBitPos(c *Ctx, args [][]byte) {
	bit, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		c.Error(ErrBitArg)
		return
	}
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	if !exists {
		c.W.WriteInt(map[bool]int64{true: -1, false: 0}[bit == 1])
		return
	}
	start, end := int64(0), int64(-1)
	isBit, endGiven := false, false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if start, ok = ParseInt(args[3]); !ok {
			c.Error(ErrNotInt)
			return
		}
		if len(args) == 6 {
			if isBit, ok = parseBitUnit(args[5]); !ok {
				c.Error(ErrSyntax)
				return
			}
		}
		if len(args) >= 5 {
			if end, ok = ParseInt(args[4]); !ok {
				c.Error(ErrNotInt)
				return
			}
			endGiven = true
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	lo, hi, empty := bitRange(start, end, len(v), isBit)
	if empty {
		c.W.WriteInt(-1)
		return
	}
	for i := lo; i <= hi; i++ {
		if int64(v[i>>3]>>(7-uint(i&7)))&1 == bit {
			c.W.WriteInt(i)
			return
		}
	}
	// No match: a search for 0 without an end finds the first bit past the
	// string, as if it were padded with zeros.
	if bit == 1 || endGiven {
		c.W.WriteInt(-1)
		return
	}
	c.W.WriteInt((hi>>3 + 1) << 3)
}

func cmdBitOp(c *Ctx, args [][]byte) {
	var fn func(a, b byte) byte
	switch {
	case EqualFold(args[1], "and"):
		fn = func(a, b byte) byte { return a & b }
	case EqualFold(args[1], "or"):
		fn = func(a, b byte) byte { return a | b }
	case EqualFold(args[1], "xor"):
		fn = func(a, b byte) byte { return a ^ b }
	case EqualFold(args[1], "not"):
		if len(args) != 4 {
			c.Error(ErrBitOpNot)
			return
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	srcs := make([]string, 0, len(args)-3)
	maxLen := 0
	for _, k := range args[3:] {
		v, _, done := getString(c, k)
		if done {
			return
		}
		srcs = append(srcs, v)
		if len(v) > maxLen {
			maxLen = len(v)
		}
	}
	out := make([]byte, maxLen)
	for i := range out {
		if fn == nil {
			out[i] = ^srcs[0][i]
			continue
		}
		acc := byteAt(srcs[0], i)
		for _, s := range srcs[1:] {
			acc = fn(acc, byteAt(s, i))
		}
		out[i] = acc
	}
	dst := string(args[2])
	if maxLen == 0 {
		c.Tx.Delete(dst)
	} else {
		c.Tx.SetString(dst, string(out), 0, false)
	}
	c.W.WriteInt(int64(maxLen))
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}
