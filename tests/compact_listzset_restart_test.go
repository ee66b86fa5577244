package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompactListZSetRestart builds lists and sorted sets on both sides of
// the inline limits (128 elements or 8 KB for a list; 128 members or a
// 65-byte member for a sorted set) and checks the replies against Redis
// before and after a restart.
func TestCompactListZSetRestart(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	both := func(args ...string) {
		t.Helper()
		p.Same(t, args...)
	}
	both("RPUSH", "ls", "b", "c")
	both("LPUSH", "ls", "a")
	lb := []string{"RPUSH", "lb"}
	for i := 0; i < 200; i++ {
		lb = append(lb, fmt.Sprintf("e%d", i))
	}
	both(lb...)
	both("RPUSH", "lbytes", strings.Repeat("x", 5000), strings.Repeat("y", 5000), "z")
	both(append([]string{"RPUSH", "back"}, lb[2:]...)...)
	both("LTRIM", "back", "10", "20") // moves back inline
	both("LINSERT", "back", "BEFORE", "e15", "ins")
	both("LREM", "back", "0", "e12")
	both("ZADD", "zs", "2", "b", "1", "a", "1", "c", "-inf", "lo")
	zb := []string{"ZADD", "zb"}
	for i := 0; i < 200; i++ {
		zb = append(zb, fmt.Sprint(i%17), fmt.Sprintf("m%d", i))
	}
	both(zb...)
	both("ZADD", "zlong", "1", "short", "2", strings.Repeat("v", 65))
	both("ZRANGESTORE", "zcopy", "zb", "0", "9")
	both("ZUNIONSTORE", "zu", "2", "zs", "zcopy", "WEIGHTS", "1", "2")

	check := func() {
		t.Helper()
		cmds := [][]string{
			{"DBSIZE"}, {"LRANGE", "ls", "0", "-1"}, {"LRANGE", "lb", "0", "-1"}, {"LINDEX", "lb", "150"},
			{"LRANGE", "lbytes", "0", "-1"}, {"LRANGE", "back", "0", "-1"}, {"LLEN", "back"},
			{"ZRANGE", "zs", "0", "-1", "WITHSCORES"}, {"ZRANGE", "zb", "0", "-1", "WITHSCORES"},
			{"ZRANGEBYSCORE", "zb", "(3", "5", "LIMIT", "2", "7"}, {"ZREVRANK", "zb", "m33"},
			{"ZRANGE", "zlong", "0", "-1", "WITHSCORES"}, {"ZRANGE", "zu", "0", "-1", "WITHSCORES"},
			{"ZSCAN", "zs", "0"}, {"ZSCAN", "zu", "0"}, {"ZCOUNT", "zu", "1", "4"}, {"ZRANGEBYLEX", "zs", "[b", "+"},
		}
		sameAll(t, p, cmds)
	}
	check()
	p.RestartQlessd(t)
	check()
	// Writes after the restart, then pops that empty the keys.
	both("RPUSH", "ls", "d")
	both("LMPOP", "1", "ls", "LEFT", "COUNT", "10")
	both("ZPOPMIN", "zs", "10")
	both("ZREMRANGEBYRANK", "zb", "0", "195")
	both("ZRANGE", "zb", "0", "-1", "WITHSCORES")
	both("DEL", "lb", "zlong", "back")
	both("EXISTS", "ls", "zs", "lb")
	both("DBSIZE")
}

// Commands whose destination is also a source read the inline members
// before they write them.
func TestCompactSelfReferentialStores(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "ZADD", "z", "1", "a", "2", "b", "3", "c")
	p.Same(t, "ZUNIONSTORE", "z", "2", "z", "z", "WEIGHTS", "1", "3")
	p.Same(t, "ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Same(t, "ZINTERSTORE", "z", "2", "z", "z", "AGGREGATE", "MAX")
	p.Same(t, "ZRANGESTORE", "z", "z", "1", "-1")
	p.Same(t, "ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Same(t, "ZADD", "z", "5", "x", "6", "x", "1", "y")
	p.Same(t, "ZADD", "z", "GT", "CH", "1", "x", "9", "y")
	p.Same(t, "ZINCRBY", "z", "2.5", "b")
	p.Same(t, "ZDIFFSTORE", "z2", "2", "z", "z")
	p.Same(t, "ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Same(t, "ZDIFFSTORE", "z", "1", "z")
	p.Same(t, "ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Same(t, "RPUSH", "l", "1", "2", "3")
	p.Same(t, "LMOVE", "l", "l", "LEFT", "RIGHT")
	p.Same(t, "RPOPLPUSH", "l", "l")
	p.Same(t, "LRANGE", "l", "0", "-1")
	p.Same(t, "LSET", "l", "-1", strings.Repeat("w", 9000))
	p.Same(t, "LLEN", "l")
	p.Same(t, "LSET", "l", "-1", "w")
	p.Same(t, "LRANGE", "l", "0", "-1")
	p.Same(t, "LPOS", "l", "w")
}
