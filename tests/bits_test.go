package tests

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestStringsBits(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SETBIT", "b", "7", "1"}, {"SETBIT", "b", "7", "0"}, {"SETBIT", "b", "100", "1"}, {"GET", "b"},
		{"GETBIT", "b", "100"}, {"GETBIT", "b", "101"}, {"GETBIT", "b", "100000"}, {"GETBIT", "nokey", "0"},
		{"SETBIT", "b", "-1", "1"}, {"SETBIT", "b", "x", "1"}, {"SETBIT", "b", "1", "2"}, {"SETBIT", "b", "1", "x"},
		{"SETBIT", "b", "1", "-1"}, {"SETBIT", "b", "4294967296", "1"}, {"SETBIT", "b", "4294967295", "x"},
		{"GETBIT", "b", "-1"}, {"GETBIT", "b", "4294967296"}, {"GETBIT", "b", "4294967295"},
		{"SET", "t", "v", "EX", "100"}, {"SETBIT", "t", "0", "1"}, {"TTL", "t"}, {"GET", "t"},
		{"SET", "s", "foobar"}, {"BITCOUNT", "s"}, {"BITCOUNT", "s", "0", "0"}, {"BITCOUNT", "s", "1", "1"},
		{"BITCOUNT", "s", "1", "-2"}, {"BITCOUNT", "s", "-2", "-1"}, {"BITCOUNT", "s", "5", "30", "BIT"},
		{"BITCOUNT", "s", "5", "30", "BYTE"}, {"BITCOUNT", "s", "-9", "-1", "bit"}, {"BITCOUNT", "s", "3", "2"},
		{"BITCOUNT", "s", "0"}, {"BITCOUNT", "s", "0", "1", "x"}, {"BITCOUNT", "s", "x", "1"}, {"BITCOUNT", "nokey"},
		{"BITCOUNT", "nokey", "0", "1"}, {"BITCOUNT", "nokey", "x"}, {"BITCOUNT", "nokey", "0", "1", "x"},
		{"BITCOUNT", "nokey", "0"}, {"BITPOS", "nokey", "1", "x", "y", "z"}, {"BITPOS", "nokey", "0", "x"}, {"BITCOUNT", "s", "0", "1", "bit", "x"}, {"BITCOUNT", "s", "-100", "100"},
		{"SET", "z", "\xff\xf0\x00"}, {"BITPOS", "z", "0"}, {"BITPOS", "z", "1"}, {"BITPOS", "z", "1", "2"},
		{"BITPOS", "z", "0", "2"}, {"BITPOS", "z", "0", "0", "0"}, {"BITPOS", "z", "1", "0", "-1", "BIT"},
		{"BITPOS", "z", "0", "3", "13", "BIT"}, {"BITPOS", "z", "1", "7", "15", "bit"}, {"BITPOS", "z", "2"},
		{"BITPOS", "z", "x"}, {"BITPOS", "z", "1", "x"}, {"BITPOS", "z", "1", "0", "x"}, {"BITPOS", "z", "1", "0", "1", "x"},
		{"BITPOS", "nokey", "0"}, {"BITPOS", "nokey", "1"}, {"BITPOS", "z", "1", "0", "1", "2", "3"},
		{"SET", "ones", "\xff\xff"}, {"BITPOS", "ones", "0"}, {"BITPOS", "ones", "0", "0"}, {"BITPOS", "ones", "0", "0", "-1"},
		{"BITPOS", "ones", "0", "1", "1", "BIT"}, {"BITPOS", "ones", "1", "5", "4"}, {"SET", "e", ""}, {"BITPOS", "e", "0"},
		{"BITPOS", "e", "1"}, {"BITCOUNT", "e"},
		{"SET", "k1", "foobar"}, {"SET", "k2", "abcdef"}, {"SET", "k3", "xy"}, {"BITOP", "AND", "d", "k1", "k2"},
		{"GET", "d"}, {"BITOP", "OR", "d", "k1", "k3"}, {"GET", "d"}, {"BITOP", "XOR", "d", "k1", "k2", "k3"}, {"GET", "d"},
		{"BITOP", "NOT", "d", "k1"}, {"GET", "d"}, {"BITOP", "NOT", "d", "k1", "k2"}, {"BITOP", "NAND", "d", "k1"},
		{"BITOP", "AND", "d", "k1", "nokey"}, {"GET", "d"}, {"BITOP", "AND", "d", "nokey"}, {"EXISTS", "d"},
		{"SET", "d", "v", "EX", "100"}, {"BITOP", "OR", "d", "k3"}, {"TTL", "d"}, {"BITOP", "AND", "d"},
		{"BITOP", "NOT", "d", "nokey"}, {"EXISTS", "d"},
	})
	// Random BITCOUNT and BITPOS ranges over random bytes.
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 12; i++ {
		b := make([]byte, rng.IntN(6))
		for j := range b {
			b[j] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				b[j] = []byte{0, 0xff}[rng.IntN(2)]
			}
		}
		p.Same(t, "SET", "r", string(b))
		for j := 0; j < 15; j++ {
			s, e := strconv.Itoa(rng.IntN(60)-30), strconv.Itoa(rng.IntN(60)-30)
			unit := []string{"BIT", "BYTE"}[rng.IntN(2)]
			bit := strconv.Itoa(rng.IntN(2))
			p.Same(t, "BITCOUNT", "r", s, e, unit)
			p.Same(t, "BITPOS", "r", bit, s, e, unit)
			p.Same(t, "BITPOS", "r", bit, s)
		}
	}
}

func TestStringsBitfield(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"BITFIELD", "bf"}, {"BITFIELD", "bf", "GET", "u8", "0"}, {"EXISTS", "bf"}, {"BITFIELD", "bf", "SET", "u8", "0", "255"},
		{"GET", "bf"}, {"BITFIELD", "bf", "INCRBY", "u8", "0", "10"}, {"BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1"}, {"BITFIELD", "bf", "GET", "i8", "0", "GET", "u4", "4"},
		{"BITFIELD", "bf", "SET", "i5", "#3", "-7", "GET", "i5", "#3", "GET", "u5", "15"}, {"GET", "bf"},
		{"BITFIELD", "bf", "GET", "u64", "0"}, {"BITFIELD", "bf", "GET", "i65", "0"}, {"BITFIELD", "bf", "GET", "u0", "0"},
		{"BITFIELD", "bf", "GET", "x8", "0"}, {"BITFIELD", "bf", "GET", "u8", "-1"}, {"BITFIELD", "bf", "GET", "u8", "x"},
		{"BITFIELD", "bf", "GET", "u8", "#x"}, {"BITFIELD", "bf", "GET", "u8", "4294967296"}, {"BITFIELD", "bf", "SET", "u8", "0", "x"},
		{"BITFIELD", "bf", "GET", "u8"}, {"BITFIELD", "bf", "SET", "u8", "0"}, {"BITFIELD", "bf", "OVERFLOW", "BAD"},
		{"BITFIELD", "bf", "OVERFLOW"}, {"BITFIELD", "bf", "BOGUS"}, {"BITFIELD", "bf", "GET", "u8", "0", "BOGUS"},
		{"BITFIELD", "bf", "GET", "i64", "0", "SET", "i64", "0", "-9223372036854775808", "INCRBY", "i64", "0", "-1"},
		{"BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "-1", "INCRBY", "i64", "0", "9223372036854775807"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i64", "0", "9223372036854775807", "INCRBY", "i64", "0", "1"},
		{"BITFIELD", "new", "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "5"}, {"GET", "new"}, {"STRLEN", "new"},
		{"BITFIELD_RO", "bf", "GET", "u8", "0"}, {"BITFIELD_RO", "bf", "SET", "u8", "0", "1"}, {"BITFIELD_RO", "nokey", "GET", "i3", "1"},
		{"BITFIELD_RO", "bf", "INCRBY", "u8", "0", "x"}, {"BITFIELD", "bf", "SET", "u63", "1", "-1", "GET", "u63", "1"},
		{"SET", "t", "v", "EX", "100"}, {"BITFIELD", "t", "SET", "u8", "8", "65"}, {"TTL", "t"}, {"GET", "t"},
	})
	rng := rand.New(rand.NewPCG(11, 12))
	types := []string{"u1", "u3", "u8", "u16", "u63", "i1", "i4", "i8", "i17", "i63", "i64"}
	vals := []string{"0", "1", "-1", "7", "-8", "127", "128", "255", "256", "-129", "65535", "9223372036854775807", "-9223372036854775808", "4611686018427387904"}
	for i := 0; i < 150; i++ {
		args := []string{"BITFIELD", "r"}
		for j := 1 + rng.IntN(4); j > 0; j-- {
			typ, off := types[rng.IntN(len(types))], strconv.Itoa(rng.IntN(40))
			if rng.IntN(4) == 0 {
				off = "#" + strconv.Itoa(rng.IntN(4))
			}
			switch rng.IntN(4) {
			case 0:
				args = append(args, "GET", typ, off)
			case 1:
				args = append(args, "SET", typ, off, vals[rng.IntN(len(vals))])
			case 2:
				args = append(args, "INCRBY", typ, off, vals[rng.IntN(len(vals))])
			default:
				args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[rng.IntN(3)])
			}
		}
		p.Same(t, args...)
		if t.Failed() {
			return
		}
	}
	p.Same(t, "GET", "r")
}
