package tests

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Sets past 128 members are skiplists in Redis; ranks and ranges must
// still agree, from both ends.
func TestZSetsLarge(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	add := []string{"ZADD", "big"}
	lex := []string{"ZADD", "lex"}
	for i := 0; i < 300; i++ {
		add = append(add, strconv.Itoa(i/3), fmt.Sprintf("m%03d", 299-i))
		lex = append(lex, "0", fmt.Sprintf("k%04d", i*7%1000))
	}
	p.Same(t, add...)
	p.Same(t, lex...)
	zcmds(t, p,
		"ZCARD big", "ZRANGE big 0 4 WITHSCORES", "ZRANGE big -5 -1 WITHSCORES", "ZRANGE big 140 160",
		"ZRANGE big 280 -1", "ZRANGE big 2 296", "ZREVRANGE big 0 4 WITHSCORES", "ZREVRANGE big 250 260",
		"ZREVRANGE big 0 -1", "ZRANGE big 0 -1", "ZRANK big m000", "ZRANK big m299", "ZRANK big m150",
		"ZREVRANK big m000", "ZREVRANK big m150", "ZRANGEBYSCORE big 50 60 LIMIT 3 4 WITHSCORES",
		"ZREVRANGEBYSCORE big (60 50 LIMIT 2 5", "ZRANGEBYSCORE big -inf +inf LIMIT 290 100",
		"ZRANGEBYSCORE big -inf +inf LIMIT 299 1", "ZRANGEBYSCORE big -inf +inf LIMIT 300 1", "ZCOUNT big (10 20",
		"ZRANGE big 95 +inf BYSCORE REV LIMIT 0 4", "ZRANGEBYLEX lex [k0500 (k0600", "ZREVRANGEBYLEX lex + [k0990",
		"ZLEXCOUNT lex (k0100 [k0900", "ZRANGEBYLEX lex - + LIMIT 150 3", "ZREMRANGEBYRANK big 100 -101",
		"ZRANGE big 95 105 WITHSCORES", "ZPOPMAX big 3", "ZPOPMIN big 3", "ZREMRANGEBYSCORE big (20 40",
		"ZCARD big", "ZUNIONSTORE u 2 big lex WEIGHTS 2 1", "ZRANGE u 0 9 WITHSCORES", "ZINTERSTORE i 2 big u",
		"ZRANGE i 0 -1 WITHSCORES", "ZREMRANGEBYLEX lex [k0100 [k0800", "ZCARD lex",
	)
}

// ZSCAN over a large set must return every member that stays in the set,
// whatever COUNT, and finish; members sharing their first 8 bytes must not
// stall the cursor.
func TestZSetsScanLarge(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	want := map[string]bool{}
	var zs []redis.Z
	for i := 0; i < 1000; i++ {
		m := fmt.Sprintf("m%d", i)
		if i%3 == 0 {
			m = fmt.Sprintf("same-prefix-%d", i)
		}
		want[m] = true
		zs = append(zs, redis.Z{Score: float64(i % 17), Member: m})
	}
	if err := rdb.ZAdd(ctx, "z", zs...).Err(); err != nil {
		t.Fatal(err)
	}
	for _, count := range []int64{1, 7, 100} {
		seen := map[string]bool{}
		var cursor uint64
		for rounds := 0; ; rounds++ {
			if rounds > 2000 {
				t.Fatalf("count %d: scan does not finish", count)
			}
			keys, next, err := rdb.ZScan(ctx, "z", cursor, "", count).Result()
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(keys); i += 2 {
				seen[keys[i]] = true
			}
			if next == 0 {
				break
			}
			cursor = next
		}
		if len(seen) != len(want) {
			t.Errorf("count %d: saw %d of %d members", count, len(seen), len(want))
		}
	}
	keys, _, err := rdb.ZScan(ctx, "z", 0, "m99*", 2000).Result()
	if err != nil || len(keys) != 2*6 { // m991 m992 m994 m995 m997 m998
		t.Errorf("match m99*: %d items, %v", len(keys), err)
	}
}
