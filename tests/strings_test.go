package tests

import (
	"strconv"
	"strings"
	"testing"
)

// sameAll runs each command on both servers and compares the raw replies.
func TestStringsGetSet(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "k", "v"}, {"GET", "k"}, {"GET", "missing"}, {"SET", "k"}, {"GET"}, {"GET", "a", "b"},
		{"SET", "e", ""}, {"GET", "e"}, {"SET", "bin", "a\x00b\r\nc"}, {"GET", "bin"},
		// NX / XX
		{"SET", "k", "v2", "NX"}, {"GET", "k"}, {"SET", "n", "1", "nx"}, {"GET", "n"},
		{"SET", "k", "v3", "XX"}, {"GET", "k"}, {"SET", "x", "1", "XX"}, {"GET", "x"},
		{"SET", "k", "v", "NX", "XX"}, {"SET", "k", "v", "XX", "NX"}, {"SET", "k", "v", "NX", "NX"},
		{"SET", "k", "v", "XX", "XX"},
		// GET
		{"SET", "k", "g1", "GET"}, {"SET", "new1", "g1", "GET"}, {"GET", "new1"},
		{"SET", "k", "g2", "NX", "GET"}, {"GET", "k"}, {"SET", "new2", "g2", "NX", "GET"}, {"GET", "new2"},
		{"SET", "k", "g3", "XX", "GET"}, {"SET", "new3", "g3", "XX", "GET"}, {"GET", "new3"},
		{"SET", "k", "v", "GET", "GET"},
		// expiry options and their errors
		{"SET", "k", "v", "EX", "100"}, {"TTL", "k"}, {"SET", "k", "v", "PX", "100000"}, {"TTL", "k"},
		{"SET", "k", "v", "EXAT", "99999999999"}, {"EXPIRETIME", "k"}, {"SET", "k", "v", "PXAT", "99999999999000"},
		{"PEXPIRETIME", "k"}, {"SET", "k", "v", "EX", "10", "EX", "20"}, {"TTL", "k"},
		{"SET", "k", "v", "EX", "10", "PX", "20"}, {"SET", "k", "v", "EX", "10", "EXAT", "20"},
		{"SET", "k", "v", "PX", "10", "PXAT", "20"}, {"SET", "k", "v", "EX"}, {"SET", "k", "v", "PX"},
		{"SET", "k", "v", "EX", "0"}, {"SET", "k", "v", "EX", "-1"}, {"SET", "k", "v", "PX", "0"},
		{"SET", "k", "v", "EXAT", "0"}, {"SET", "k", "v", "PXAT", "-5"}, {"SET", "k", "v", "EX", "abc"},
		{"SET", "k", "v", "EX", "1.5"}, {"SET", "k", "v", "EX", "9223372036854775807"},
		{"SET", "k", "v", "EX", "9223372036854775"}, {"SET", "k", "v", "PX", "9223372036854775807"},
		{"SET", "k", "v", "EXAT", "9223372036854775"}, {"SET", "k", "v", "EX", "99999999999999999999"},
		{"SET", "k", "v", "PXAT", "9223372036854775807"}, {"TTL", "k"},
		{"SET", "k", "v", "EX", "100"}, {"SET", "k", "v2", "KEEPTTL"}, {"TTL", "k"}, {"GET", "k"},
		{"SET", "k", "v3"}, {"TTL", "k"}, {"SET", "k", "v", "KEEPTTL", "EX", "10"},
		{"SET", "k", "v", "EX", "10", "KEEPTTL"}, {"SET", "k", "v", "PERSIST"}, {"SET", "k", "v", "BOGUS"},
		{"SET", "k", "v", "ex", "10", "nx"}, {"SET", "k", "v", "XX", "GET", "PX", "5000"},
	})
	// The two servers are read a moment apart, so PTTL is checked on each
	// rather than compared: it must be the 5000 ms just set, less the time
	// since.
	for name, conn := range map[string]*Raw{"qlessd": p.Q, "redis": p.R} {
		r := conn.Do(t, "PTTL", "k")
		ms, err := strconv.Atoi(strings.Trim(r, ":\r\n"))
		if err != nil || ms <= 4000 || ms > 5000 {
			t.Errorf("%s: PTTL after SET PX 5000 = %q", name, r)
		}
	}
	sameAll(t, p, [][]string{
		{"SET", "past", "v", "EXAT", "1"}, {"GET", "past"}, {"EXISTS", "past"},
		{"SET", "past", "v", "PXAT", "1", "GET"}, {"GET", "past"},
		{"SET", "k", "v", "NX", "EX", "0"}, {"SET", "k", "v", "EX", "0", "GET"},
	})
}

func TestStringsRelatives(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SETNX", "a", "1"}, {"SETNX", "a", "2"}, {"GET", "a"}, {"SETNX", "a"},
		{"SETEX", "b", "100", "v"}, {"TTL", "b"}, {"GET", "b"}, {"SETEX", "b", "0", "v"},
		{"SETEX", "b", "-1", "v"}, {"SETEX", "b", "x", "v"}, {"SETEX", "b", "9223372036854775807", "v"},
		{"PSETEX", "c", "100000", "v"}, {"TTL", "c"}, {"PSETEX", "c", "0", "v"}, {"PSETEX", "c", "-3", "v"},
		{"PSETEX", "c", "9223372036854775807", "v"}, {"SETEX", "b"},
		{"GETSET", "a", "new"}, {"GET", "a"}, {"GETSET", "zz", "v"}, {"GET", "zz"},
		{"SET", "t", "v", "EX", "100"}, {"GETSET", "t", "w"}, {"TTL", "t"},
		{"GETDEL", "a"}, {"GETDEL", "a"}, {"EXISTS", "a"},
		{"MSET", "m1", "1", "m2", "2"}, {"MGET", "m1", "m2", "nokey", "m1"}, {"MSET", "m1"},
		{"MSET", "m1", "1", "m2"}, {"MSETNX", "m1", "x", "m3", "3"}, {"GET", "m3"},
		{"MSETNX", "m4", "4", "m5", "5"}, {"MGET", "m4", "m5"}, {"MSETNX", "m6"}, {"MSETNX", "m6", "1", "m7"},
		{"MSETNX", "m8", "1", "m8", "2"}, {"GET", "m8"},
		{"APPEND", "ap", "hello"}, {"APPEND", "ap", " world"}, {"GET", "ap"}, {"APPEND", "ap", ""},
		{"STRLEN", "ap"}, {"STRLEN", "nokey"}, {"SET", "t2", "x", "EX", "100"}, {"APPEND", "t2", "y"}, {"TTL", "t2"},
		{"GETEX", "ap"}, {"GETEX", "nokey"}, {"GETEX", "ap", "EX", "100"}, {"TTL", "ap"},
		{"GETEX", "ap", "PX", "200000"}, {"TTL", "ap"}, {"GETEX", "ap", "EXAT", "99999999999"}, {"EXPIRETIME", "ap"},
		{"GETEX", "ap", "PXAT", "99999999999123"}, {"PEXPIRETIME", "ap"}, {"GETEX", "ap", "PERSIST"}, {"TTL", "ap"},
		{"GETEX", "ap", "EX", "0"}, {"GETEX", "ap", "EX", "-1"}, {"GETEX", "ap", "EX"}, {"GETEX", "ap", "KEEPTTL"},
		{"GETEX", "ap", "NX"}, {"GETEX", "ap", "GET"}, {"GETEX", "ap", "EX", "10", "PERSIST"},
		{"GETEX", "ap", "PERSIST", "EX", "10"}, {"GETEX", "ap", "EX", "x"}, {"GETEX", "nokey", "EX", "-1"},
		{"GETEX", "nokey", "BOGUS"}, {"GETEX", "ap", "EX", "10", "EX", "20"}, {"TTL", "ap"},
		{"GETEX", "ap", "EXAT", "1"}, {"EXISTS", "ap"}, {"GETEX"},
	})
}

func TestStringsCounters(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"INCR", "n"}, {"INCR", "n"}, {"DECR", "n"}, {"DECR", "n"}, {"DECR", "n"}, {"GET", "n"},
		{"INCRBY", "n", "10"}, {"INCRBY", "n", "-20"}, {"DECRBY", "n", "5"}, {"DECRBY", "n", "-5"},
		{"INCRBY", "n", "x"}, {"INCRBY", "n", "1.5"}, {"INCRBY", "n", ""}, {"INCRBY", "n", " 1"},
		{"DECRBY", "n", "-9223372036854775808"}, {"INCRBY", "n", "9223372036854775808"},
		{"SET", "big", "9223372036854775807"}, {"INCR", "big"}, {"INCRBY", "big", "0"}, {"DECR", "big"},
		{"SET", "small", "-9223372036854775808"}, {"DECR", "small"}, {"INCRBY", "small", "-1"}, {"INCR", "small"},
		{"SET", "s", "  1"}, {"INCR", "s"}, {"SET", "s", "1 "}, {"INCR", "s"}, {"SET", "s", "+1"}, {"INCR", "s"},
		{"SET", "s", "01"}, {"INCR", "s"}, {"SET", "s", "-0"}, {"INCR", "s"}, {"SET", "s", "abc"}, {"INCR", "s"},
		{"SET", "s", ""}, {"INCR", "s"}, {"SET", "s", "1.0"}, {"INCR", "s"}, {"SET", "s", "0"}, {"INCR", "s"},
		{"SET", "s", "99999999999999999999"}, {"INCR", "s"},
		{"SET", "t", "5", "EX", "100"}, {"INCR", "t"}, {"TTL", "t"},
		{"INCR"}, {"INCRBY", "n"}, {"DECRBY", "n", "1", "2"},
		// INCRBYFLOAT prints as Redis's long double "%.17Lf".
		{"INCRBYFLOAT", "f", "0.1"}, {"INCRBYFLOAT", "f", "0.1"}, {"INCRBYFLOAT", "f", "0.1"},
		{"INCRBYFLOAT", "f", "-0.3"}, {"GET", "f"}, {"INCRBYFLOAT", "f", "1e10"}, {"INCRBYFLOAT", "f", "1.5e-5"},
		{"INCRBYFLOAT", "f", "-1e10"}, {"INCRBYFLOAT", "g", "3.0e3"}, {"INCRBYFLOAT", "g", "5.0e3"},
		{"INCRBYFLOAT", "g", "1e300"}, {"INCRBYFLOAT", "h", "10.5"}, {"INCRBYFLOAT", "h", "0.1"},
		{"INCRBYFLOAT", "i", "1.23456789012345678"}, {"INCRBYFLOAT", "j", "-5"}, {"INCRBYFLOAT", "j", "5"},
		{"INCRBYFLOAT", "j", "abc"}, {"INCRBYFLOAT", "j", ""}, {"INCRBYFLOAT", "j", " 1"}, {"INCRBYFLOAT", "j", "1 "},
		{"INCRBYFLOAT", "j", "inf"}, {"INCRBYFLOAT", "j", "-inf"}, {"INCRBYFLOAT", "j", "nan"},
		{"INCRBYFLOAT", "j", "+1.5"}, {"INCRBYFLOAT", "j", ".5"}, {"INCRBYFLOAT", "j", "5."},
		{"INCRBYFLOAT", "j", "1e"}, {"INCRBYFLOAT", "j", "1e5000"}, {"INCRBYFLOAT", "j", "1e-5000"},
		{"INCRBYFLOAT", "j", "0x10"}, {"INCRBYFLOAT", "k", "1e4000"}, {"INCRBYFLOAT", "j", "1p3"},
		{"SET", "bad", "abc"}, {"INCRBYFLOAT", "bad", "1"}, {"SET", "bad", "1.5 "}, {"INCRBYFLOAT", "bad", "1"},
		{"SET", "fi", "10"}, {"INCRBYFLOAT", "fi", "0.5"}, {"INCRBYFLOAT", "fi", "-10.5"},
		{"SET", "inf", "inf"}, {"INCRBYFLOAT", "inf", "1"}, {"INCRBYFLOAT", "inf", "x"},
		{"SET", "t", "5", "EX", "100"}, {"INCRBYFLOAT", "t", "1.5"}, {"TTL", "t"},
		{"INCRBYFLOAT", "n", "0.000000000000000001"}, {"INCRBYFLOAT", "z", "-0.0"},
		{"INCRBYFLOAT", "w", "123456789.123456789"}, {"INCRBYFLOAT", "w", "0.000000001"},
	})
}

func TestStringsRanges(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "s", "Hello World"}, {"GETRANGE", "s", "0", "4"}, {"GETRANGE", "s", "-5", "-1"},
		{"GETRANGE", "s", "0", "-1"}, {"GETRANGE", "s", "0", "100"}, {"GETRANGE", "s", "-100", "2"},
		{"GETRANGE", "s", "5", "2"}, {"GETRANGE", "s", "-1", "-5"}, {"GETRANGE", "s", "20", "30"},
		{"GETRANGE", "s", "-1", "0"}, {"GETRANGE", "nokey", "0", "-1"}, {"GETRANGE", "s", "x", "1"},
		{"GETRANGE", "s", "0", "y"}, {"GETRANGE", "s", "-9223372036854775808", "9223372036854775807"},
		{"SUBSTR", "s", "1", "3"}, {"SET", "e", ""}, {"GETRANGE", "e", "0", "-1"},
		{"SETRANGE", "s", "6", "Redis"}, {"GET", "s"}, {"SETRANGE", "s", "20", "x"}, {"GET", "s"},
		{"SETRANGE", "n", "3", "abc"}, {"GET", "n"}, {"SETRANGE", "n2", "0", ""}, {"EXISTS", "n2"},
		{"SETRANGE", "s", "0", ""}, {"SETRANGE", "s", "-1", "x"}, {"SETRANGE", "s", "x", "x"},
		{"SETRANGE", "s", "536870912", "x"}, {"SETRANGE", "s", "536870911", "xy"},
		{"SETRANGE", "n3", "536870912", "x"}, {"SETRANGE", "s", "9223372036854775807", "x"},
		{"SETRANGE", "n3", "9223372036854775807", "xy"}, {"SETRANGE", "n3", "9223372036854775806", ""}, {"SETRANGE", "n3", "536870912", ""}, {"EXISTS", "n3"},
		{"DEL", "s"}, {"SET", "t", "abc", "EX", "100"}, {"SETRANGE", "t", "1", "X"}, {"TTL", "t"}, {"GET", "t"},
	})
}

// TestStringsWrongType checks WRONGTYPE against every other type qlessd
// can create; the commands that make them belong to other groups.
func TestStringsWrongType(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	makers := [][]string{{"LPUSH", "w", "a"}, {"SADD", "w", "a"}, {"HSET", "w", "f", "v"}, {"ZADD", "w", "1", "a"}}
	tried := 0
	for _, mk := range makers {
		if strings.HasPrefix(p.Q.Do(t, "DEL", "w"), ":") && strings.HasPrefix(p.Q.Do(t, mk...), "-ERR unknown command") {
			continue
		}
		tried++
		p.Q.Do(t, "DEL", "w")
		p.R.Do(t, "DEL", "w")
		p.Same(t, mk...)
		sameAll(t, p, [][]string{
			{"BITFIELD", "w", "GET", "u8", "0"}, {"BITFIELD_RO", "w", "SET", "u8", "0", "1"}, {"BITOP", "AND", "d", "w"},
			{"LCS", "w", "s"}, {"SETBIT", "w", "0", "1"}, {"BITCOUNT", "w", "0"}, {"BITPOS", "w", "1"}, {"GETBIT", "w", "0"},
			{"GET", "w"}, {"SET", "w", "v", "GET"}, {"SET", "w", "v", "NX", "GET"}, {"GETSET", "w", "v"},
			{"GETDEL", "w"}, {"GETEX", "w"}, {"GETEX", "w", "EX", "-1"}, {"INCR", "w"}, {"DECRBY", "w", "2"},
			{"INCRBY", "w", "x"}, {"INCRBYFLOAT", "w", "1"}, {"INCRBYFLOAT", "w", "x"}, {"APPEND", "w", "x"},
			{"STRLEN", "w"}, {"GETRANGE", "w", "0", "1"}, {"GETRANGE", "w", "x", "1"}, {"SETRANGE", "w", "0", "x"},
			{"SETRANGE", "w", "0", ""}, {"SETRANGE", "w", "-1", "x"}, {"MGET", "w", "nokey"}, {"SETNX", "w", "v"},
			{"MSETNX", "w", "v"}, {"TYPE", "w"}, {"SET", "w", "v", "EX", "0", "GET"}, {"SET", "w", "v", "XX"},
			{"TYPE", "w"}, {"GET", "w"},
		})
	}
	t.Logf("WRONGTYPE checked against %d other types", tried)
}
