package commands

import (
	"strconv"
	"time"
)

func registerServer(t *Table) {
	t.Add(
		&Cmd{Name: "ping", Arity: -1, Flags: Fast | NoTx | PubSubOK, Run: cmdPing},
		&Cmd{Name: "echo", Arity: 2, Flags: Fast | NoTx, Run: cmdEcho},
		&Cmd{Name: "time", Arity: 1, Flags: Fast | NoTx | Loading | Stale, Run: cmdTime},
	)
}

func cmdPing(c *Ctx, args [][]byte) {
	switch len(args) {
	case 1:
		c.W.WriteStatus("PONG")
	case 2:
		c.W.WriteBulk(args[1])
	default:
		c.Error(WrongArgs("ping"))
	}
}

func cmdEcho(c *Ctx, args [][]byte) { c.W.WriteBulk(args[1]) }

func cmdTime(c *Ctx, args [][]byte) {
	now := time.Now()
	c.W.WriteArray(2)
	c.W.WriteBulkString(strconv.FormatInt(now.Unix(), 10))
	c.W.WriteBulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}
