package tests

import "testing"

func TestZSetsWithSetInputs(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"SADD s a b c", "SADD n 1 2 3", "ZADD z 2 a 5 b 7 q",
		"ZUNIONSTORE d 2 s z", "ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 2 s z WEIGHTS 3 1",
		"ZRANGE d 0 -1 WITHSCORES", "ZUNION 3 s n z AGGREGATE MAX WITHSCORES", "ZINTER 2 s s WITHSCORES",
		"ZDIFF 2 z s WITHSCORES", "ZDIFF 2 s z WITHSCORES", "ZINTERCARD 2 s z", "ZUNION 1 n WEIGHTS 2.5 WITHSCORES",
	)
}
