package commands

import (
	"math"
	"strings"
	"time"
)

// The data file is always an append-only log; SAVE compacts it (a buntdb
// shrink), which is the nearest thing to writing a snapshot.

func cmdSave(c *Ctx, args [][]byte) {
	if err := c.Env.Store().Save(); err != nil {
		c.Error("ERR " + err.Error())
		return
	}
	c.OK()
}

func cmdBgSave(c *Ctx, args [][]byte) {
	if len(args) > 2 || (len(args) == 2 && !EqualFold(args[1], "schedule")) {
		c.Error(ErrSyntax)
		return
	}
	db := c.Env.Store()
	go db.Save()
	c.W.WriteStatus("Background saving started")
}

// cmdBgRewriteAOF compacts the append-only file in the background.
func cmdBgRewriteAOF(c *Ctx, args [][]byte) {
	db := c.Env.Store()
	go db.Save()
	c.W.WriteStatus("Background append only file rewriting started")
}

// cmdWait is WAIT numreplicas timeout. It replies how many replicas hold
// every write acknowledged so far: none when the server runs alone; in a
// cluster, the followers a majority needs, since a write is acknowledged
// only once a majority holds it. Asking for more waits for the timeout
// (forever when 0), as Redis does when replicas do not acknowledge.
func cmdWait(c *Ctx, args [][]byte) {
	n, ok := ParseInt(args[1])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	ms, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrTimeoutNotInt)
		return
	}
	if ms < 0 {
		c.Error(ErrTimeoutNeg)
		return
	}
	st := c.Table.replicationState()
	if !st.Master {
		c.Error(ErrWaitReplica)
		return
	}
	if n <= st.Acked || !c.CanBlock() {
		c.W.WriteInt(st.Acked)
		return
	}
	var d time.Duration // 0 waits forever, as do waits too long to count
	if ms < math.MaxInt64/int64(time.Millisecond) {
		d = time.Duration(ms) * time.Millisecond
	}
	c.Block = &BlockRequest{DB: c.Sess.DB(), Timeout: d}
}

func cmdLastSave(c *Ctx, args [][]byte) {
	c.W.WriteInt(c.Env.Store().LastSave().Unix())
}

// cmdShutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. On success
// nothing is replied: the connection closes as the server stops.
func cmdShutdown(c *Ctx, args [][]byte) {
	save, nosave, abort := false, false, false
	for _, a := range args[1:] {
		switch {
		case EqualFold(a, "save"):
			save = true
		case EqualFold(a, "nosave"):
			nosave = true
		case EqualFold(a, "now"), EqualFold(a, "force"):
		case EqualFold(a, "abort"):
			abort = true
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if (save && nosave) || (abort && len(args) > 2) {
		c.Error(ErrSyntax)
		return
	}
	if abort {
		c.Error(ErrNoShutdown)
		return
	}
	if err := c.Env.Shutdown(save); err != nil {
		c.Error(ErrShutdownSave)
	}
}

// cmdDebug supports SLEEP (used by tests and tools); other subcommands
// are not implemented.
func cmdDebug(c *Ctx, args [][]byte) {
	sub := strings.ToLower(string(args[1]))
	switch {
	case sub == "sleep" && len(args) == 3:
		// Redis reads the seconds with a bare strtod: junk means 0.
		secs, ok := ParseFloat(args[2])
		if ok && secs > 0 {
			time.Sleep(time.Duration(secs * float64(time.Second)))
		}
		c.OK()
	case sub == "help":
		writeHelp(c, "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.")
	default:
		c.Error(Errorf(ErrUnknownSubOr, string(args[1]), "DEBUG"))
	}
}

// writeHelp writes a HELP reply: the lines, then Redis's closing line.
func writeHelp(c *Ctx, lines ...string) {
	c.W.WriteArray(len(lines) + 2)
	c.W.WriteStatus(lines[0])
	for _, l := range lines[1:] {
		c.W.WriteStatus(l)
	}
	c.W.WriteStatus("HELP")
	c.W.WriteStatus("    Prints this help.")
}
