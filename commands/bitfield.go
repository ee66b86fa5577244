package commands

import "math"

// Overflow behaviours of BITFIELD.
const (
	bfWrap = iota
	bfSat
	bfFail
)

type bitfieldOp struct {
	op       int // 0 GET, 1 SET, 2 INCRBY
	signed   bool
	bits     uint
	offset   int64
	value    int64
	overflow int
}

// cmdBitField serves BITFIELD and BITFIELD_RO.
func cmdBitField(c *Ctx, args [][]byte) {
	var ops []bitfieldOp
	overflow := bfWrap
	readonly := true
	highest := int64(-1)
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var op int
		switch {
		case EqualFold(args[j], "get") && rem >= 2:
			op = 0
		case EqualFold(args[j], "set") && rem >= 3:
			op = 1
		case EqualFold(args[j], "incrby") && rem >= 3:
			op = 2
		case EqualFold(args[j], "overflow") && rem >= 1:
			j++
			switch {
			case EqualFold(args[j], "wrap"):
				overflow = bfWrap
			case EqualFold(args[j], "sat"):
				overflow = bfSat
			case EqualFold(args[j], "fail"):
				overflow = bfFail
			default:
				c.Error(ErrBitfieldOverflow)
				return
			}
			continue
		default:
			c.Error(ErrSyntax)
			return
		}
		signed, bits, ok := parseBitfieldType(args[j+1])
		if !ok {
			c.Error(ErrBitfieldType)
			return
		}
		off, ok := parseBitfieldOffset(args[j+2], bits)
		if !ok {
			c.Error(ErrBitOffset)
			return
		}
		o := bitfieldOp{op: op, signed: signed, bits: bits, offset: off, overflow: overflow}
		if op != 0 {
			readonly = false
			highest = max(highest, off+int64(bits)-1)
			if o.value, ok = ParseInt(args[j+3]); !ok {
				c.Error(ErrNotInt)
				return
			}
			j++
		}
		ops = append(ops, o)
		j += 2
	}
	if !readonly && c.Name == "bitfield_ro" {
		c.Error(ErrBitfieldRO)
		return
	}
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	b := []byte(v)
	if !readonly {
		if need := int(highest>>3) + 1; need > len(b) {
			b = append(b, make([]byte, need-len(b))...)
		}
	}
	c.W.WriteArray(len(ops))
	for _, o := range ops {
		switch o.op {
		case 0:
			c.W.WriteInt(readField(b, o))
		case 1:
			old := readField(b, o)
			nv, over := fitField(o, o.value, 0)
			if over && o.overflow == bfFail {
				c.W.WriteNull()
				continue
			}
			writeField(b, o, nv)
			c.W.WriteInt(old)
		case 2:
			nv, over := fitField(o, readField(b, o), o.value)
			if over && o.overflow == bfFail {
				c.W.WriteNull()
				continue
			}
			writeField(b, o, nv)
			c.W.WriteInt(nv)
		}
	}
	if !readonly {
		c.Tx.SetString(string(args[1]), string(b), 0, exists)
	}
}

// parseBitfieldType reads i1..i64 or u1..u63.
func parseBitfieldType(a []byte) (signed bool, bits uint, ok bool) {
	if len(a) < 2 {
		return false, 0, false
	}
	switch a[0] {
	case 'i', 'I':
		signed = true
	case 'u', 'U':
	default:
		return false, 0, false
	}
	n, ok := ParseInt(a[1:])
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, false
	}
	return signed, uint(n), true
}

// parseBitfieldOffset reads an offset in bits, or "#n" meaning n fields of
// the type's width.
func parseBitfieldOffset(a []byte, bits uint) (int64, bool) {
	hash := len(a) > 0 && a[0] == '#'
	if hash {
		a = a[1:]
	}
	n, ok := ParseInt(a)
	if !ok {
		return 0, false
	}
	if hash {
		n *= int64(bits)
	}
	if n < 0 || n>>3 >= maxStringLen {
		return 0, false
	}
	return n, true
}

func readField(b []byte, o bitfieldOp) int64 {
	var u uint64
	for i := int64(0); i < int64(o.bits); i++ {
		pos := o.offset + i
		bit := uint64(0)
		if pos>>3 < int64(len(b)) {
			bit = uint64(b[pos>>3]>>(7-uint(pos&7))) & 1
		}
		u = u<<1 | bit
	}
	if o.signed && o.bits < 64 && u&(1<<(o.bits-1)) != 0 {
		u |= math.MaxUint64 << o.bits
	}
	return int64(u)
}

func writeField(b []byte, o bitfieldOp, v int64) {
	u := uint64(v)
	for i := int64(0); i < int64(o.bits); i++ {
		pos := o.offset + i
		mask := byte(1) << (7 - uint(pos&7))
		if u>>(o.bits-1-uint(i))&1 == 1 {
			b[pos>>3] |= mask
		} else {
			b[pos>>3] &^= mask
		}
	}
}

// fitField returns value+incr brought into the field's range by the op's
// overflow rule, and whether it overflowed (Redis's
// check{Signed,Unsigned}BitfieldOverflow).
func fitField(o bitfieldOp, value, incr int64) (int64, bool) {
	if !o.signed {
		max := uint64(1)<<o.bits - 1
		uv := uint64(value)
		wrap := func() int64 { return int64((uv + uint64(incr)) & max) }
		switch {
		case uv > max || (incr > 0 && incr > int64(max-uv)):
			if o.overflow == bfWrap {
				return wrap(), true
			}
			return int64(max), true
		case incr < 0 && incr < -int64(uv):
			if o.overflow == bfWrap {
				return wrap(), true
			}
			return 0, true
		}
		return int64(uv + uint64(incr)), false
	}
	maxV := int64(math.MaxInt64)
	if o.bits < 64 {
		maxV = 1<<(o.bits-1) - 1
	}
	minV := -maxV - 1
	maxIncr := int64(uint64(maxV) - uint64(value))
	minIncr := minV - value
	wrap := func() int64 {
		s := uint64(value) + uint64(incr)
		if o.bits < 64 {
			mask := uint64(math.MaxUint64) << o.bits
			if s&(1<<(o.bits-1)) != 0 {
				s |= mask
			} else {
				s &^= mask
			}
		}
		return int64(s)
	}
	switch {
	case value > maxV || (o.bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if o.overflow == bfWrap {
			return wrap(), true
		}
		return maxV, true
	case value < minV || (o.bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if o.overflow == bfWrap {
			return wrap(), true
		}
		return minV, true
	}
	return value + incr, false
}
