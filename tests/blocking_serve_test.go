package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// pipe writes several commands in one write, so the server reads them as
// one pipelined batch.
func pipe(t *testing.T, r *Raw, cmds ...[]string) {
	t.Helper()
	var b strings.Builder
	for _, args := range cmds {
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	r.c.SetWriteDeadline(time.Now().Add(waitTimeout))
	if _, err := r.c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
}

func cmd(args ...string) []string { return args }

// blockAll sends each client its blocking command, in order, waiting for
// each to block before the next so that arrival order is fixed.
func blockAll(t *testing.T, ctl *Raw, clients []*Raw, cmds [][]string) {
	t.Helper()
	for i, c := range clients {
		c.Send(t, cmds[i]...)
		waitBlocked(t, ctl, i+1)
	}
}

// Several clients blocked on several keys, served by pipelined pushes from
// several clients: each push serves before the next command runs, so the
// lengths the pushes reply reflect the pops already done.
func TestBlockingServePipelinedPushes(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		ctl, p1, p2 := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		var cs []*Raw
		for i := 0; i < 6; i++ {
			cs = append(cs, DialRaw(t, addr))
		}
		blockAll(t, ctl, cs, [][]string{
			cmd("BLPOP", "a", "b", "0"),
			cmd("BRPOP", "b", "0"),
			cmd("BLPOP", "c", "a", "0"),
			cmd("BZPOPMIN", "z", "b", "0"),
			cmd("BLMPOP", "0", "2", "b", "c", "LEFT", "COUNT", "2"),
			cmd("BZMPOP", "0", "2", "y", "z", "MAX", "COUNT", "5"),
		})
		pipe(t, p1,
			cmd("RPUSH", "b", "b1", "b2", "b3"),
			cmd("LPUSH", "a", "a1"),
			cmd("ZADD", "z", "1", "m1", "2", "m2"),
			cmd("RPUSH", "c", "c1"),
			cmd("RPUSH", "a", "a2"),
		)
		for i := 0; i < 5; i++ {
			log("p1 " + p1.Read(t))
		}
		pipe(t, p2,
			cmd("ZADD", "z", "3", "m3"),
			cmd("RPUSH", "c", "c2", "c3"),
			cmd("LPUSH", "a", "a3"),
		)
		for i := 0; i < 3; i++ {
			log("p2 " + p2.Read(t))
		}
		for i, c := range cs {
			log(fmt.Sprintf("c%d %s", i, c.Read(t)))
		}
		for _, k := range []string{"a", "b", "c"} {
			log(k + " " + ctl.Do(t, "LRANGE", k, "0", "-1"))
		}
		log("z " + ctl.Do(t, "ZRANGE", "z", "0", "-1", "WITHSCORES"))

		// Second round: pushes that each serve part of the line.
		blockAll(t, ctl, cs[:4], [][]string{
			cmd("BLPOP", "n1", "n2", "0"),
			cmd("BLPOP", "n2", "0"),
			cmd("BRPOP", "n1", "0"),
			cmd("BLPOP", "n2", "n1", "0"),
		})
		pipe(t, p1,
			cmd("RPUSH", "n2", "v1"),
			cmd("RPUSH", "n1", "w1", "w2"),
			cmd("LLEN", "n1"),
		)
		for i := 0; i < 3; i++ {
			log("p1 " + p1.Read(t))
		}
		pipe(t, p2, cmd("LPUSH", "n2", "v2", "v3"), cmd("LLEN", "n2"))
		for i := 0; i < 2; i++ {
			log("p2 " + p2.Read(t))
		}
		for i, c := range cs[:4] {
			log(fmt.Sprintf("c%d %s", i, c.Read(t)))
		}
	})
}

// One transaction making several keys ready: a client waiting on two of
// them is served from the key made ready first, as Redis 7.0 does.
func TestBlockingServeReadyKeyOrder(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		ctl, a, b := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		blockAll(t, ctl, []*Raw{a, b}, [][]string{
			cmd("BLPOP", "k1", "k2", "0"),
			cmd("BLMPOP", "0", "2", "k1", "k2", "RIGHT", "COUNT", "3"),
		})
		pipe(t, ctl,
			cmd("MULTI"),
			cmd("RPUSH", "k2", "x", "y"),
			cmd("RPUSH", "k1", "p", "q"),
			cmd("EXEC"),
		)
		for i := 0; i < 4; i++ {
			log(ctl.Read(t))
		}
		log(a.Read(t))
		log(b.Read(t))
		log(ctl.Do(t, "LRANGE", "k1", "0", "-1"))
		log(ctl.Do(t, "LRANGE", "k2", "0", "-1"))
		// A script's pushes serve waiters too, after the script.
		blockAll(t, ctl, []*Raw{a, b}, [][]string{
			cmd("BRPOP", "s1", "s2", "0"),
			cmd("BZPOPMAX", "s3", "0"),
		})
		log(ctl.Do(t, "EVAL", "redis.call('RPUSH', KEYS[2], 'v1'); redis.call('ZADD', KEYS[3], 1, 'm'); return redis.call('LLEN', KEYS[2])", "3", "s1", "s2", "s3"))
		log(a.Read(t))
		log(b.Read(t))
	})
}

// Served moves feed other waiters in the same round: a chain through
// several lists, a waiter that arrived before the mover on its
// destination, and a cycle.
func TestBlockingServeMoveChains(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		ctl := DialRaw(t, addr)
		var cs []*Raw
		for i := 0; i < 4; i++ {
			cs = append(cs, DialRaw(t, addr))
		}
		blockAll(t, ctl, cs, [][]string{
			cmd("BLMOVE", "s1", "s2", "RIGHT", "LEFT", "0"),
			cmd("BLMOVE", "s2", "s3", "LEFT", "RIGHT", "0"),
			cmd("BRPOPLPUSH", "s3", "s4", "0"),
			cmd("BLPOP", "s4", "0"),
		})
		log(ctl.Do(t, "RPUSH", "s1", "a", "b"))
		for i, c := range cs {
			log(fmt.Sprintf("c%d %s", i, c.Read(t)))
		}
		for _, k := range []string{"s1", "s2", "s3", "s4"} {
			log(k + " " + ctl.Do(t, "LRANGE", k, "0", "-1"))
		}

		// The destination's waiter arrived first; the mover still feeds it.
		blockAll(t, ctl, cs[:3], [][]string{
			cmd("BRPOP", "d", "0"),
			cmd("BLMOVE", "src", "d", "LEFT", "LEFT", "0"),
			cmd("BLPOP", "d", "0"),
		})
		pipe(t, ctl, cmd("RPUSH", "src", "1", "2"), cmd("LLEN", "d"), cmd("LLEN", "src"))
		for i := 0; i < 3; i++ {
			log(ctl.Read(t))
		}
		log("c0 " + cs[0].Read(t))
		log("c1 " + cs[1].Read(t))
		cs[3].Send(t, "RPUSH", "d", "3")
		log("c3 " + cs[3].Read(t))
		log("c2 " + cs[2].Read(t))

		// A cycle: each mover is served once, and the element ends where
		// the last move put it.
		blockAll(t, ctl, cs[:3], [][]string{
			cmd("BLMOVE", "x", "y", "LEFT", "RIGHT", "0"),
			cmd("BLMOVE", "y", "x", "LEFT", "RIGHT", "0"),
			cmd("BLMOVE", "x", "y", "RIGHT", "RIGHT", "0"),
		})
		log(ctl.Do(t, "LPUSH", "x", "v"))
		for i := 0; i < 3; i++ {
			log(fmt.Sprintf("c%d %s", i, cs[i].Read(t)))
		}
		log(ctl.Do(t, "LRANGE", "x", "0", "-1"))
		log(ctl.Do(t, "LRANGE", "y", "0", "-1"))
	})
}

// A waiter of another type is passed over for the one behind it, and a
// blocking command's earlier pipelined replies are sent while it waits.
func TestBlockingServeMixedWaitersAndPipelinedReplies(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		ctl, a, b, c := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		blockAll(t, ctl, []*Raw{a, b}, [][]string{
			cmd("BZPOPMIN", "k", "0"),
			cmd("BLPOP", "k", "0"),
		})
		log(ctl.Do(t, "RPUSH", "k", "v", "w"))
		log(b.Read(t))
		log(ctl.Do(t, "LRANGE", "k", "0", "-1"))
		log(ctl.Do(t, "DEL", "k"))
		log(ctl.Do(t, "ZADD", "k", "2", "two", "1", "one"))
		log(a.Read(t))
		log(ctl.Do(t, "ZRANGE", "k", "0", "-1"))

		pipe(t, c, cmd("PING"), cmd("SET", "sx", "1"), cmd("BLPOP", "q", "0"), cmd("GET", "sx"))
		log(c.Read(t))
		log(c.Read(t))
		waitBlocked(t, ctl, 1)
		log(ctl.Do(t, "RPUSH", "q", "e"))
		log(c.Read(t))
		log(c.Read(t))
	})
}
