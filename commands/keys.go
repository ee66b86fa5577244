package commands

func registerKeys(t *Table) {
	t.Add(
		&Cmd{Name: "del", Arity: -2, Flags: Write, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdDel},
		&Cmd{Name: "unlink", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdDel},
		&Cmd{Name: "exists", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdExists},
		&Cmd{Name: "type", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdType},
		&Cmd{Name: "dbsize", Arity: 1, Flags: ReadOnly | Fast, Run: cmdDBSize},
		&Cmd{Name: "flushdb", Arity: -1, Flags: Write, Run: cmdFlushDB},
		&Cmd{Name: "flushall", Arity: -1, Flags: Write, Run: cmdFlushAll},
	)
}

func cmdDel(c *Ctx, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.Tx.Delete(string(k)) {
			n++
		}
	}
	c.W.WriteInt(n)
}

func cmdExists(c *Ctx, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.Tx.Exists(string(k)) {
			n++
		}
	}
	c.W.WriteInt(n)
}

func cmdType(c *Ctx, args [][]byte) {
	c.W.WriteStatus(c.Tx.TypeOf(string(args[1])).String())
}

func cmdDBSize(c *Ctx, args [][]byte) { c.W.WriteInt(int64(c.Tx.DBSize())) }

// flushMode accepts the optional ASYNC or SYNC of FLUSHDB and FLUSHALL.
func flushMode(c *Ctx, args [][]byte) bool {
	if len(args) > 2 || (len(args) == 2 && !EqualFold(args[1], "async") && !EqualFold(args[1], "sync")) {
		c.Error(ErrSyntax)
		return false
	}
	return true
}

func cmdFlushDB(c *Ctx, args [][]byte) {
	if flushMode(c, args) {
		c.Tx.FlushDB()
		c.OK()
	}
}

func cmdFlushAll(c *Ctx, args [][]byte) {
	if flushMode(c, args) {
		c.Tx.FlushAll()
		c.OK()
	}
}
