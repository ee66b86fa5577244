package tests

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// sameAll runs each command against both servers in order.
func TestListsPushPop(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"LPUSH", "l", "a", "b", "c"}, {"RPUSH", "l", "d", "e"}, {"LRANGE", "l", "0", "-1"},
		{"LPUSHX", "l", "x"}, {"RPUSHX", "l", "y", "z"}, {"LPUSHX", "none", "x"}, {"RPUSHX", "none", "x"},
		{"EXISTS", "none"}, {"LLEN", "l"}, {"LLEN", "none"}, {"TYPE", "l"},
		{"LPOP", "l"}, {"RPOP", "l"}, {"LPOP", "l", "2"}, {"RPOP", "l", "2"}, {"LPOP", "l", "0"},
		{"RPOP", "l", "0"}, {"LPOP", "l", "-1"}, {"LPOP", "l", "x"}, {"LPOP", "l", "1.5"},
		{"LPOP", "l", "1", "2"}, {"RPOP", "l", "1", "2"}, {"LPOP", "none"}, {"RPOP", "none"},
		{"LPOP", "none", "0"}, {"LPOP", "none", "3"}, {"RPOP", "none", "-1"},
		{"LPOP", "l", "100"}, {"EXISTS", "l"}, {"LPOP", "l", "1"},
		{"RPUSH", "one", "v"}, {"RPOP", "one", "5"}, {"EXISTS", "one"},
		{"LPUSH", "l"}, {"RPUSH"}, {"LPUSHX", "l"}, {"LPOP"}, {"LLEN"}, {"LLEN", "a", "b"},
		{"SET", "s", "str"}, {"LPUSH", "s", "a"}, {"RPUSH", "s", "a"}, {"LPUSHX", "s", "a"},
		{"RPUSHX", "s", "a"}, {"LPOP", "s"}, {"RPOP", "s", "0"}, {"LPOP", "s", "-1"}, {"LLEN", "s"},
		{"RPUSH", "bin", "\x00\xff", "", "\r\n"}, {"LRANGE", "bin", "0", "-1"}, {"LPOP", "bin", "3"},
	})
}

func TestListsRangeIndexSet(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "RPUSH", "l", "a", "b", "c", "d", "e")
	p.Same(t, "SET", "s", "x")
	for _, r := range [][2]string{{"0", "-1"}, {"1", "3"}, {"-3", "-1"}, {"-100", "100"}, {"3", "1"},
		{"5", "10"}, {"-1", "-5"}, {"0", "0"}, {"-5", "-5"}, {"4", "4"}, {"-6", "0"},
		{"9223372036854775807", "-9223372036854775808"}, {"-9223372036854775808", "9223372036854775807"}} {
		p.Same(t, "LRANGE", "l", r[0], r[1])
	}
	sameAll(t, p, [][]string{
		{"LRANGE", "none", "0", "-1"}, {"LRANGE", "l", "a", "1"}, {"LRANGE", "l", "0", "1.0"},
		{"LRANGE", "s", "0", "1"}, {"LRANGE", "s", "x", "1"}, {"LRANGE", "none", "x", "1"},
		{"LRANGE", "l", "0"}, {"LRANGE", "l", "+1", "2"}, {"LRANGE", "l", "01", "2"},
	})
	for _, i := range []string{"0", "4", "5", "-1", "-5", "-6", "100", "-9223372036854775808", "x", " 1"} {
		p.Same(t, "LINDEX", "l", i)
	}
	sameAll(t, p, [][]string{
		{"LINDEX", "none", "0"}, {"LINDEX", "none", "x"}, {"LINDEX", "s", "0"}, {"LINDEX", "s", "x"},
		{"LINDEX", "l"},
		{"LSET", "l", "0", "A"}, {"LSET", "l", "-1", "E"}, {"LSET", "l", "2", "C"}, {"LRANGE", "l", "0", "-1"},
		{"LSET", "l", "5", "x"}, {"LSET", "l", "-6", "x"}, {"LSET", "l", "x", "v"}, {"LSET", "none", "0", "v"},
		{"LSET", "none", "x", "v"}, {"LSET", "s", "0", "v"}, {"LSET", "s", "x", "v"}, {"LSET", "l", "0"},
		{"LRANGE", "l", "0", "-1"}, {"EXISTS", "none"},
	})
}

func TestListsTrimRemInsert(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "SET", "s", "x")
	for _, r := range [][2]string{{"1", "-2"}, {"0", "-1"}, {"-3", "-1"}, {"2", "1"}, {"-100", "100"},
		{"1", "1"}, {"10", "20"}, {"-2", "-3"}, {"-1", "0"}} {
		p.Same(t, "DEL", "l")
		p.Same(t, "RPUSH", "l", "a", "b", "c", "d", "e", "f")
		p.Same(t, "LTRIM", "l", r[0], r[1])
		p.Same(t, "LRANGE", "l", "0", "-1")
		p.Same(t, "EXISTS", "l")
	}
	sameAll(t, p, [][]string{
		{"LTRIM", "none", "0", "1"}, {"LTRIM", "s", "0", "1"}, {"LTRIM", "s", "x", "1"}, {"LTRIM", "l", "0", "y"},
		{"LTRIM", "none", "x", "1"}, {"LTRIM", "l", "0"},
		{"DEL", "l"}, {"RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"},
		{"LREM", "l", "1", "a"}, {"LRANGE", "l", "0", "-1"}, {"LREM", "l", "-2", "a"}, {"LRANGE", "l", "0", "-1"},
		{"LREM", "l", "0", "b"}, {"LRANGE", "l", "0", "-1"}, {"LREM", "l", "0", "zz"}, {"LREM", "l", "x", "a"},
		{"LREM", "none", "0", "a"}, {"LREM", "s", "0", "a"}, {"LREM", "s", "x", "a"}, {"LREM", "l", "0", "a"},
		{"LREM", "l", "-9223372036854775808", "c"}, {"EXISTS", "l"}, {"LREM", "l", "1"},
		{"RPUSH", "l", "a", "b", "c"},
		{"LINSERT", "l", "BEFORE", "a", "x"}, {"LINSERT", "l", "after", "c", "y"}, {"LINSERT", "l", "After", "b", "z"},
		{"LINSERT", "l", "before", "b", "w"}, {"LRANGE", "l", "0", "-1"}, {"LINSERT", "l", "before", "nope", "v"},
		{"LINSERT", "l", "middle", "a", "v"}, {"LINSERT", "none", "before", "a", "v"}, {"LINSERT", "none", "bad", "a", "v"},
		{"LINSERT", "s", "before", "a", "v"}, {"LINSERT", "s", "bad", "a", "v"}, {"EXISTS", "none"},
		{"LINSERT", "l", "before", "a"}, {"LLEN", "l"},
	})
}

func TestListsPos(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c", "b", "a")
	p.Same(t, "SET", "s", "x")
	for _, c := range [][]string{
		{"c"}, {"z"}, {"a", "RANK", "2"}, {"c", "RANK", "-1"}, {"c", "RANK", "-2"}, {"c", "RANK", "4"},
		{"c", "COUNT", "0"}, {"c", "COUNT", "2"}, {"c", "COUNT", "10"}, {"z", "COUNT", "0"}, {"c", "RANK", "2", "COUNT", "0"},
		{"c", "RANK", "-1", "COUNT", "2"}, {"c", "MAXLEN", "3"}, {"c", "MAXLEN", "2"}, {"c", "COUNT", "0", "MAXLEN", "7"},
		{"c", "RANK", "-1", "MAXLEN", "2"}, {"c", "RANK", "-1", "MAXLEN", "3", "COUNT", "0"}, {"c", "MAXLEN", "0"},
		{"c", "RANK", "0"}, {"c", "RANK", "x"}, {"c", "RANK", "1.5"}, {"c", "COUNT", "-1"}, {"c", "COUNT", "x"},
		{"c", "MAXLEN", "-1"}, {"c", "MAXLEN", "x"}, {"c", "RANK"}, {"c", "COUNT"}, {"c", "FOO", "1"}, {"c", "rank", "1", "count"},
		{"c", "RANK", "-9223372036854775808"}, {"c", "RANK", "-9223372036854775808", "COUNT", "0"},
		{"c", "RANK", "9223372036854775807"}, {"c", "COUNT", "1", "COUNT", "2"}, {"c", "RANK", "0", "COUNT", "-1"},
		{"c", "COUNT", "-1", "RANK", "0"}, {"c", "count", "0", "maxlen", "1", "rank", "-1"},
	} {
		p.Same(t, append([]string{"LPOS", "l"}, c...)...)
	}
	sameAll(t, p, [][]string{
		{"LPOS", "none", "a"}, {"LPOS", "none", "a", "COUNT", "0"}, {"LPOS", "none", "a", "RANK", "0"},
		{"LPOS", "s", "a"}, {"LPOS", "s", "a", "COUNT", "0"}, {"LPOS", "s", "a", "RANK", "0"}, {"LPOS", "l"},
	})
}

func TestListsMove(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"RPUSH", "src", "a", "b", "c"}, {"SET", "s", "x"},
		{"RPOPLPUSH", "src", "dst"}, {"LRANGE", "dst", "0", "-1"}, {"RPOPLPUSH", "src", "src"}, {"LRANGE", "src", "0", "-1"},
		{"LMOVE", "src", "dst", "LEFT", "RIGHT"}, {"LMOVE", "src", "dst", "right", "left"}, {"LMOVE", "dst", "dst", "LEFT", "LEFT"},
		{"LMOVE", "dst", "dst", "RIGHT", "RIGHT"}, {"LRANGE", "dst", "0", "-1"}, {"EXISTS", "src"},
		{"LMOVE", "none", "dst", "LEFT", "LEFT"}, {"RPOPLPUSH", "none", "dst"}, {"LMOVE", "none", "s", "LEFT", "LEFT"},
		{"RPOPLPUSH", "none", "s"}, {"RPOPLPUSH", "dst", "s"}, {"LMOVE", "dst", "s", "LEFT", "RIGHT"},
		{"RPOPLPUSH", "s", "dst"}, {"LMOVE", "s", "dst", "LEFT", "RIGHT"}, {"LRANGE", "dst", "0", "-1"},
		{"LMOVE", "dst", "x", "UP", "LEFT"}, {"LMOVE", "dst", "x", "LEFT", "DOWN"}, {"LMOVE", "none", "x", "UP", "LEFT"},
		{"LMOVE", "s", "x", "UP", "LEFT"}, {"LMOVE", "dst", "x", "LEFT"}, {"RPOPLPUSH", "dst"},
		{"RPUSH", "one", "v"}, {"LMOVE", "one", "one", "LEFT", "RIGHT"}, {"LRANGE", "one", "0", "-1"},
		{"LMOVE", "one", "two", "LEFT", "RIGHT"}, {"EXISTS", "one"}, {"LRANGE", "two", "0", "-1"},
	})
}

func TestListsMPop(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"RPUSH", "a", "1", "2", "3"}, {"RPUSH", "b", "x", "y"}, {"SET", "s", "str"},
		{"LMPOP", "2", "none", "a", "LEFT"}, {"LMPOP", "2", "none", "a", "RIGHT", "COUNT", "5"}, {"EXISTS", "a"},
		{"LMPOP", "1", "b", "left", "count", "1"}, {"LMPOP", "2", "none", "none2", "LEFT"},
		{"LMPOP", "2", "none", "s", "LEFT"}, {"LMPOP", "2", "b", "s", "LEFT"},
		{"LMPOP", "0", "a", "LEFT"}, {"LMPOP", "-1", "a", "LEFT"}, {"LMPOP", "x", "a", "LEFT"}, {"LMPOP", "3", "a", "LEFT"},
		{"LMPOP", "2", "a", "LEFT"}, {"LMPOP", "1", "a", "UP"}, {"LMPOP", "1", "a", "LEFT", "COUNT", "0"},
		{"LMPOP", "1", "a", "LEFT", "COUNT", "-1"}, {"LMPOP", "1", "a", "LEFT", "COUNT", "x"}, {"LMPOP", "1", "a", "LEFT", "COUNT"},
		{"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"}, {"LMPOP", "1", "a", "LEFT", "FOO"}, {"LMPOP", "1", "a"},
		{"LMPOP", "9223372036854775807", "a", "LEFT"}, {"LMPOP", "1", "s", "UP", "COUNT", "0"},
	})
}

// Blocking commands that find data, or may not block, answer at once.
func TestListsBlockingImmediate(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"RPUSH", "a", "1", "2", "3"}, {"SET", "s", "str"},
		{"BLPOP", "none", "a", "0"}, {"BRPOP", "a", "none", "0"}, {"BLPOP", "a", "1.5"}, {"EXISTS", "a"},
		{"BLPOP", "s", "0"}, {"BLPOP", "none", "s", "0"}, {"BRPOP", "s", "a", "0"},
		{"BLPOP", "none", "0.01"}, {"BRPOP", "none", "0.001"}, {"BLPOP", "none", "1e-400"}, {"BLPOP", "none", "0.0001"},
		{"BLPOP", "a", "x"}, {"BLPOP", "a", "-1"}, {"BLPOP", "a", "-0.5e3"}, {"BLPOP", "a", "inf"}, {"BLPOP", "a", "-inf"},
		{"BLPOP", "a", "1e400"}, {"BLPOP", "a", "1e5000"}, {"BLPOP", "a", "1e-5000"}, {"BLPOP", "a", "nan"},
		{"BLPOP", "a", " 1"}, {"BLPOP", "a", "1 "}, {"BLPOP", "a", ""}, {"BLPOP", "a", "9.3e15"}, {"BLPOP", "s", "x"},
		{"BLPOP", "a"}, {"BRPOP", "a"},
		{"RPUSH", "a", "1", "2", "3"},
		{"BRPOPLPUSH", "a", "d", "0"}, {"BRPOPLPUSH", "a", "s", "0"}, {"BRPOPLPUSH", "s", "d", "0"},
		{"BRPOPLPUSH", "none", "d", "0.01"}, {"BRPOPLPUSH", "a", "d", "x"}, {"BRPOPLPUSH", "a", "d", "-1"},
		{"BLMOVE", "a", "d", "LEFT", "LEFT", "0"}, {"BLMOVE", "a", "d", "UP", "LEFT", "x"},
		{"BLMOVE", "a", "d", "LEFT", "UP", "-1"}, {"BLMOVE", "a", "d", "LEFT", "LEFT", "-1"}, {"BLMOVE", "s", "d", "LEFT", "LEFT", "0"},
		{"BLMOVE", "a", "s", "LEFT", "LEFT", "0"}, {"BLMOVE", "none", "d", "RIGHT", "LEFT", "0.01"}, {"LRANGE", "d", "0", "-1"},
		{"RPUSH", "a", "1", "2", "3"},
		{"BLMPOP", "0", "2", "none", "a", "LEFT", "COUNT", "2"}, {"BLMPOP", "0.01", "1", "none", "RIGHT"},
		{"BLMPOP", "0", "1", "s", "LEFT"}, {"BLMPOP", "x", "1", "a", "LEFT"}, {"BLMPOP", "x", "0", "a", "LEFT"},
		{"BLMPOP", "x", "1", "a", "UP"}, {"BLMPOP", "-1", "1", "a", "LEFT", "COUNT", "0"}, {"BLMPOP", "-1", "1", "a", "LEFT"},
		{"BLMPOP", "0", "1", "a"}, {"BLMPOP", "0", "3", "a", "LEFT"}, {"BLMPOP", "0", "1", "a", "LEFT", "COUNT", "1", "X"},
	})
}

// A random mix of list commands keeps both servers in step.
func TestListsRandomDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewSource(42))
	v := func() string { return strconv.Itoa(rng.Intn(5)) }
	i := func() string { return strconv.Itoa(rng.Intn(14) - 7) }
	keys := []string{"k1", "k2"}
	k := func() string { return keys[rng.Intn(len(keys))] }
	for n := 0; n < 600; n++ {
		var c []string
		switch rng.Intn(12) {
		case 0:
			c = []string{"LPUSH", k(), v(), v()}
		case 1:
			c = []string{"RPUSH", k(), v(), v(), v()}
		case 2:
			c = []string{"LPOP", k(), strconv.Itoa(rng.Intn(3))}
		case 3:
			c = []string{"RPOP", k()}
		case 4:
			c = []string{"LINSERT", k(), []string{"BEFORE", "AFTER"}[rng.Intn(2)], v(), "i" + v()}
		case 5:
			c = []string{"LREM", k(), i(), v()}
		case 6:
			c = []string{"LTRIM", k(), i(), strconv.Itoa(rng.Intn(20) - 3)}
		case 7:
			c = []string{"LSET", k(), i(), "s" + v()}
		case 8:
			c = []string{"LMOVE", k(), k(), []string{"LEFT", "RIGHT"}[rng.Intn(2)], []string{"LEFT", "RIGHT"}[rng.Intn(2)]}
		case 9:
			c = []string{"LPOS", k(), v(), "RANK", []string{"1", "-1", "2", "-2"}[rng.Intn(4)], "COUNT", strconv.Itoa(rng.Intn(3))}
		case 10:
			c = []string{"LINDEX", k(), i()}
		case 11:
			c = []string{"LRANGE", k(), i(), i()}
		}
		p.Same(t, c...)
		for _, key := range keys {
			p.Same(t, "LRANGE", key, "0", "-1")
		}
		if t.Failed() {
			t.Fatalf("diverged at step %d: %s", n, fmt.Sprint(c))
		}
	}
}

// A longer list exercises the shifts of LINSERT and LREM on both sides.
func TestListsLongList(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	args := []string{"RPUSH", "l"}
	for i := 0; i < 500; i++ {
		args = append(args, strconv.Itoa(i%7))
	}
	p.Same(t, args...)
	sameAll(t, p, [][]string{
		{"LINSERT", "l", "BEFORE", "3", "early"}, {"LINDEX", "l", "3"}, {"LPOS", "l", "6", "RANK", "-1"},
		{"LREM", "l", "-3", "5"}, {"LINDEX", "l", "-1"}, {"LLEN", "l"}, {"LREM", "l", "2", "0"},
		{"LRANGE", "l", "240", "260"}, {"LSET", "l", "250", "mid"}, {"LPOS", "l", "mid"},
		{"LREM", "l", "0", "4"}, {"LRANGE", "l", "0", "-1"}, {"LTRIM", "l", "10", "-10"},
		{"LPOP", "l", "7"}, {"RPOP", "l", "7"}, {"LRANGE", "l", "-20", "-1"},
		{"LPOS", "l", "1", "COUNT", "0", "MAXLEN", "100"}, {"LRANGE", "l", "0", "-1"},
	})
}
