package tests

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRandomIncrByFloat compares long double arithmetic and printing with
// Redis over many random increments (fixed seed, so failures repeat).
func TestRandomIncrByFloat(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		switch rng.IntN(6) {
		case 0:
			return strconv.Itoa(rng.IntN(2000) - 1000)
		case 1:
			return strconv.FormatFloat(rng.NormFloat64()*1000, 'f', rng.IntN(8), 64)
		case 2:
			return strconv.FormatFloat(rng.Float64(), 'g', -1, 64)
		case 3:
			return strconv.FormatFloat(rng.NormFloat64(), 'e', rng.IntN(20), 64)
		case 4:
			return "0." + strings.Repeat("0", rng.IntN(5)) + strconv.Itoa(rng.IntN(1000))
		default:
			return strconv.FormatFloat(rng.NormFloat64()*1e15, 'f', 3, 64)
		}
	}
	for i := 0; i < 600; i++ {
		key := "f" + strconv.Itoa(rng.IntN(8))
		p.Same(t, "INCRBYFLOAT", key, gen())
		if t.Failed() {
			return
		}
	}
}

// TestRandomGlob compares KEYS on random patterns built from glob syntax.
func TestRandomGlob(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "c", "-", "]", "^", "\\", "*", "?", "[", "x", "\xff", "\x80"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := 0; i < 150; i++ {
		p.Same(t, "SET", word(rng.IntN(6)), "v")
	}
	for i := 0; i < 400; i++ {
		p.SameSorted(t, "KEYS", word(1+rng.IntN(7)))
		if t.Failed() {
			return
		}
	}
}

// TestRandomSetOptions compares SET and GETEX with random option lists.
func TestRandomSetOptions(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewPCG(5, 6))
	opts := []string{"NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "PERSIST", "100", "0", "-1", "x",
		"99999999999", "ex", "get"}
	for i := 0; i < 800; i++ {
		args := []string{"SET", "k" + strconv.Itoa(rng.IntN(3)), "v" + strconv.Itoa(i)}
		if rng.IntN(3) == 0 {
			args = []string{"GETEX", "k" + strconv.Itoa(rng.IntN(3))}
		}
		for j := rng.IntN(5); j > 0; j-- {
			args = append(args, opts[rng.IntN(len(opts))])
		}
		p.Same(t, args...)
		if rng.IntN(4) == 0 {
			p.Same(t, "DEL", "k"+strconv.Itoa(rng.IntN(3)))
		}
		if t.Failed() {
			return
		}
	}
	// TTLs in seconds match; deadlines were all far away or none.
	for i := 0; i < 3; i++ {
		p.Same(t, "TTL", "k"+strconv.Itoa(i))
		p.Same(t, "GET", "k"+strconv.Itoa(i))
	}
}

// TestLCS compares LCS in all its forms on fixed and random strings.
func TestLCS(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "s1", "ohmytext"}, {"SET", "s2", "mynewtext"}, {"LCS", "s1", "s2"}, {"LCS", "s1", "s2", "LEN"},
		{"LCS", "s1", "s2", "IDX"}, {"LCS", "s1", "s2", "IDX", "WITHMATCHLEN"}, {"LCS", "s1", "s2", "IDX", "MINMATCHLEN", "4"},
		{"LCS", "s1", "s2", "idx", "minmatchlen", "-5", "withmatchlen"}, {"LCS", "s1", "s2", "LEN", "IDX"},
		{"LCS", "s1", "s2", "BOGUS"}, {"LCS", "s1", "s2", "MINMATCHLEN"}, {"LCS", "s1", "s2", "MINMATCHLEN", "x"},
		{"LCS", "nokey", "nokey2"}, {"LCS", "nokey", "s1", "IDX"}, {"LCS", "s1", "nokey", "LEN"}, {"LCS", "s1"},
		{"LCS", "s1", "s1", "IDX", "WITHMATCHLEN"}, {"LCS", "s1", "s2", "LEN", "LEN", "WITHMATCHLEN"},
	})
	rng := rand.New(rand.NewPCG(9, 10))
	word := func() string {
		b := make([]byte, rng.IntN(14))
		for i := range b {
			b[i] = "abcd"[rng.IntN(4)]
		}
		return string(b)
	}
	for i := 0; i < 60; i++ {
		p.Same(t, "MSET", "x", word(), "y", word())
		p.Same(t, "LCS", "x", "y")
		p.Same(t, "LCS", "x", "y", "IDX", "WITHMATCHLEN")
		p.Same(t, "LCS", "x", "y", "IDX", "MINMATCHLEN", strconv.Itoa(rng.IntN(4)))
	}
}

// TestRandomCommands sends random calls of the keys and strings commands,
// with arguments drawn from keys, numbers and option words, to both
// servers. Commands whose replies depend on time or hash order are left
// out or compared sorted. DBSIZE is left out too: Redis counts a key whose
// deadline has passed until it is next touched or swept. Relative expiries
// (EX, PX, EXPIRE, SETEX...) are left to the fixed tables: a short one ends
// at a slightly different moment on each server.
func TestRandomCommands(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewPCG(13, 14))
	cmds := []string{"GET", "SET", "SETNX", "GETSET", "GETDEL", "GETEX", "MGET", "MSET", "MSETNX",
		"INCR", "DECR", "INCRBY", "DECRBY", "INCRBYFLOAT", "APPEND", "STRLEN", "GETRANGE", "SETRANGE", "SUBSTR",
		"DEL", "UNLINK", "EXISTS", "TYPE", "EXPIREAT", "PEXPIREAT", "PERSIST",
		"EXPIRETIME", "RENAME", "RENAMENX", "COPY", "TOUCH", "SETBIT", "GETBIT", "BITCOUNT", "BITPOS",
		"BITOP", "LCS", "KEYS"}
	pool := []string{"k1", "k2", "k3", "k1", "k2", "0", "1", "-1", "2", "10", "100", "-100", "3.5", "1e3", "x", "",
		"EXAT", "PXAT", "NX", "XX", "GT", "LT", "GET", "KEEPTTL", "PERSIST", "REPLACE", "DB", "AND",
		"OR", "NOT", "BIT", "BYTE", "IDX", "LEN", "9223372036854775807", "-9223372036854775808", "99999999999",
		"*", "k?", "[k]*", "hello", " 1", "0.1"}
	for i := 0; i < 3000; i++ {
		args := []string{cmds[rng.IntN(len(cmds))]}
		for j := rng.IntN(6); j > 0; j-- {
			args = append(args, pool[rng.IntN(len(pool))])
		}
		if args[0] == "KEYS" {
			p.SameSorted(t, args...)
		} else {
			p.Same(t, args...)
		}
		if t.Failed() {
			return
		}
	}
}
