package commands

import (
	"strconv"
	"time"
)

func registerServer(t *Table) {
	t.Add(
		&Cmd{Name: "ping", Arity: -1, Flags: Fast | NoTx | PubSubOK | SubscribedOK | SubscribedPong | MisconfRefused, Run: cmdPing},
		&Cmd{Name: "echo", Arity: 2, Flags: Fast | NoTx | Loading | Stale, Run: cmdEcho},
		&Cmd{Name: "time", Arity: 1, Flags: Fast | NoTx | Loading | Stale, Run: cmdTime},
		&Cmd{Name: "info", Arity: -1, Flags: ReadOnly | Loading | Stale | ReadsOutsideTx, Run: cmdInfo},
		&Cmd{Name: "command", Arity: -1, Flags: NoTx | Loading | Stale, Run: cmdCommand},
		&Cmd{Name: "config", Arity: -2, Flags: NoTx | Admin | NoScript | Loading | Stale, Run: cmdConfig},
		&Cmd{Name: "save", Arity: 1, Flags: NoTx | Admin | NoScript | NoMulti, Run: cmdSave},
		&Cmd{Name: "bgsave", Arity: -1, Flags: NoTx | Admin | NoScript, Run: cmdBgSave},
		&Cmd{Name: "lastsave", Arity: 1, Flags: NoTx | Fast | Loading | Stale | ReadsOutsideTx, Run: cmdLastSave},
		&Cmd{Name: "shutdown", Arity: -1, Flags: NoTx | Admin | NoScript | Loading | Stale | NoMulti | AllowBusy | Graduates | StandInAnswers,
			BusyOnlyWith: "nosave", Run: cmdShutdown},
		&Cmd{Name: "bgrewriteaof", Arity: 1, Flags: NoTx | Admin | NoScript, Run: cmdBgRewriteAOF},
		&Cmd{Name: "role", Arity: 1, Flags: NoTx | Fast | NoScript | Loading | Stale, Run: cmdRole},
		&Cmd{Name: "wait", Arity: 3, Flags: NoTx | NoScript | Graduates, Run: cmdWait},
		&Cmd{Name: "debug", Arity: -2, Flags: NoTx | Admin | NoScript | Loading | Stale | Graduates, Run: cmdDebug},
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
