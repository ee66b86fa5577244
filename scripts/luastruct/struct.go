// Package luastruct is Roberto Ierusalimschy's struct library as Redis 7.0
// bundles it, for gopher-lua: struct.pack, struct.unpack and struct.size
// with the layout of x86-64 Linux (little endian, 8-byte long and size_t,
// 4-byte int, doubles aligned to 8).
package luastruct

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

const (
	maxIntSize = 32
	maxAlign   = 8
	big        = 0
	little     = 1
)

// Load builds the struct module table.
func Load(L *lua.LState) *lua.LTable {
	mod := L.NewTable()
	mod.RawSetString("pack", L.NewFunction(pack))
	mod.RawSetString("unpack", L.NewFunction(unpack))
	mod.RawSetString("size", L.NewFunction(size))
	return mod
}

type header struct {
	endian int
	align  int
}

// format walks a format string as C does: it ends at the first NUL.
type format struct {
	L   *lua.LState
	s   string
	pos int
	h   header
}

func newFormat(L *lua.LState) *format {
	s := clua.CheckString(L, 1)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return &format{L: L, s: s, h: header{endian: little, align: 1}}
}

func (f *format) more() bool { return f.pos < len(f.s) }

func (f *format) next() byte {
	c := f.s[f.pos]
	f.pos++
	return c
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (f *format) num(def int) int {
	if !f.more() || !isDigit(f.s[f.pos]) {
		return def
	}
	a := 0
	for f.more() && isDigit(f.s[f.pos]) {
		d := int(f.s[f.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			clua.Raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.pos++
	}
	return a
}

// optSize is the size of option opt, reading its count if it has one.
func (f *format) optSize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'I', 'i':
		sz := f.num(4)
		if sz > maxIntSize {
			clua.Raise(f.L, "integral size %d is larger than limit of %d", sz, maxIntSize)
		}
		return sz
	case 'x':
		return 1
	case 'c':
		return f.num(1)
	}
	return 0
}

func (f *format) toAlign(length int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > f.h.align {
		size = f.h.align
	}
	return (size - (length & (size - 1))) & (size - 1)
}

func (f *format) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.h.endian = big
	case '<':
		f.h.endian = little
	case '!':
		a := f.num(maxAlign)
		if a <= 0 || a&(a-1) != 0 {
			clua.Raise(f.L, "alignment %d is not a power of 2", a)
		}
		f.h.align = a
	default:
		clua.ArgError(f.L, 1, "invalid format option '"+string(opt)+"'")
	}
}

func isIntOpt(opt byte) bool {
	return strings.IndexByte("bBhHlLTiI", opt) >= 0
}

// packArgs reads pack's arguments. The C code pushes a nil marker right
// after them, so a missing argument there reports "got nil".
type packArgs struct {
	L   *lua.LState
	top int
}

func (a packArgs) typeError(i int, tname string) {
	got := "no value"
	switch {
	case i <= a.top:
		got = clua.TypeName(a.L.Get(i))
	case i == a.top+1:
		got = "nil"
	}
	clua.ArgError(a.L, i, tname+" expected, got "+got)
}

func (a packArgs) number(i int) float64 {
	f, ok := clua.ToNumber(a.L.Get(i))
	if !ok {
		a.typeError(i, "number")
	}
	return f
}

func (a packArgs) str(i int) string {
	s, ok := clua.ToString(a.L.Get(i))
	if !ok {
		a.typeError(i, "string")
	}
	return s
}

func pack(L *lua.LState) int {
	f := newFormat(L)
	args := packArgs{L: L, top: L.GetTop()}
	arg := 2
	var out []byte
	for f.more() {
		opt := f.next()
		size := f.optSize(opt)
		for n := f.toAlign(len(out), opt, size); n > 0; n-- {
			out = append(out, 0)
		}
		switch {
		case isIntOpt(opt):
			out = putInteger(out, args.number(arg), f.h.endian, size)
			arg++
		case opt == 'x':
			out = append(out, 0)
		case opt == 'f':
			out = putBytes(out, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(args.number(arg)))), f.h.endian)
			arg++
		case opt == 'd':
			out = putBytes(out, binary.LittleEndian.AppendUint64(nil, math.Float64bits(args.number(arg))), f.h.endian)
			arg++
		case opt == 'c' || opt == 's':
			s := args.str(arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				clua.ArgError(L, arg, "string too short")
			}
			// One string may be packed many times over.
			limits.Grow(L, size)
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// putInteger stores n as C does: negative values through a signed long,
// others through an unsigned long (out-of-range doubles as x86-64 converts
// them), then size bytes in the requested order.
func putInteger(out []byte, n float64, endian, size int) []byte {
	var v uint64
	if n < 0 {
		v = uint64(clua.ToInteger(n))
	} else {
		v = toUint64(n)
	}
	buf := make([]byte, size)
	for i := 0; i < size; i++ {
		b := byte(v)
		if i >= 8 {
			b = 0
		}
		if endian == little {
			buf[i] = b
		} else {
			buf[size-1-i] = b
		}
		v >>= 8
	}
	return append(out, buf...)
}

// toUint64 is GCC's double to unsigned long on x86-64.
func toUint64(n float64) uint64 {
	if n < 9223372036854775808.0 {
		return uint64(clua.ToInteger(n))
	}
	return uint64(clua.ToInteger(n-9223372036854775808.0)) ^ (1 << 63)
}

// putBytes appends a little-endian encoding, reversed for big endian.
func putBytes(out, le []byte, endian int) []byte {
	if endian == big {
		for i, j := 0, len(le)-1; i < j; i, j = i+1, j-1 {
			le[i], le[j] = le[j], le[i]
		}
	}
	return append(out, le...)
}

func getInteger(b string, endian int, signed bool, size int) float64 {
	var l uint64
	for i := 0; i < size; i++ {
		c := b[i]
		if endian == little {
			c = b[size-1-i]
		}
		l = l<<8 | uint64(c)
	}
	if !signed {
		return float64(l)
	}
	// C shifts by size*8-1; x86 masks the count to 6 bits.
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func unpack(L *lua.LState) int {
	f := newFormat(L)
	data := clua.CheckString(L, 2)
	ld := uint64(len(data))
	pos := uint64(clua.OptInteger(L, 3, 1))
	if pos == 0 {
		clua.ArgError(L, 3, "offset must be 1 or greater")
	}
	pos--
	var res []lua.LValue
	for f.more() {
		opt := f.next()
		size := uint64(f.optSize(opt))
		pos += uint64(f.toAlign(int(pos), opt, int(size)))
		if !(size <= ld && pos <= ld-size) {
			clua.ArgError(L, 2, "data string too short")
		}
		switch {
		case isIntOpt(opt):
			res = append(res, lua.LNumber(getInteger(data[pos:], f.h.endian, opt >= 'a', int(size))))
		case opt == 'x':
		case opt == 'f':
			b := []byte(data[pos : pos+4])
			putBytes(b[:0], b, f.h.endian)
			res = append(res, lua.LNumber(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		case opt == 'd':
			b := []byte(data[pos : pos+8])
			putBytes(b[:0], b, f.h.endian)
			res = append(res, lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(b))))
		case opt == 'c':
			if size == 0 {
				var prev float64
				ok := false
				if len(res) > 0 {
					prev, ok = clua.ToNumber(res[len(res)-1])
				}
				if !ok {
					clua.Raise(L, "format 'c0' needs a previous size")
				}
				size = toUint64(prev)
				res = res[:len(res)-1]
				if !(size <= ld && pos <= ld-size) {
					clua.ArgError(L, 2, "data string too short")
				}
			}
			res = append(res, lua.LString(data[pos:pos+size]))
		case opt == 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				clua.Raise(L, "unfinished string in data")
			}
			size = uint64(e) + 1
			res = append(res, lua.LString(data[pos:pos+uint64(e)]))
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range res {
		L.Push(v)
	}
	L.Push(lua.LNumber(float64(int64(pos + 1))))
	return len(res) + 1
}

func size(L *lua.LState) int {
	f := newFormat(L)
	pos := 0
	for f.more() {
		opt := f.next()
		sz := f.optSize(opt)
		pos += f.toAlign(pos, opt, sz)
		if opt == 's' {
			clua.ArgError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && sz == 0 {
			clua.ArgError(L, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += sz
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
