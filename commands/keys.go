package commands

import "github.com/qlessd/qlessd/store"

func registerKeys(t *Table) {
	t.Add(
		&Cmd{Name: "del", Arity: -2, Flags: Write, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdDel},
		&Cmd{Name: "unlink", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdDel},
		&Cmd{Name: "exists", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdExists},
		&Cmd{Name: "type", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdType},
		&Cmd{Name: "keys", Arity: 2, Flags: ReadOnly, Run: cmdKeys},
		&Cmd{Name: "scan", Arity: -2, Flags: ReadOnly, Run: cmdScan},
		&Cmd{Name: "randomkey", Arity: 1, Flags: ReadOnly, Run: cmdRandomKey},
		&Cmd{Name: "rename", Arity: 3, Flags: Write, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdRename},
		&Cmd{Name: "renamenx", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdRename},
		&Cmd{Name: "copy", Arity: -3, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdCopy},
		&Cmd{Name: "dbsize", Arity: 1, Flags: ReadOnly | Fast, Run: cmdDBSize},
		&Cmd{Name: "flushdb", Arity: -1, Flags: Write, Run: cmdFlushDB},
		&Cmd{Name: "flushall", Arity: -1, Flags: Write, Run: cmdFlushAll},
		&Cmd{Name: "swapdb", Arity: 3, Flags: Write | Fast, Run: cmdSwapDB},
		&Cmd{Name: "touch", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: -1, Step: 1, Run: cmdExists},
		&Cmd{Name: "move", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdMove},
	)
	registerExpire(t)
}

func cmdDel(c *Ctx, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.Tx.Delete(c.Tx.KeyString(k)) {
			n++
		}
	}
	c.W.WriteInt(n)
}

func cmdExists(c *Ctx, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.Tx.Exists(c.Tx.KeyString(k)) {
			n++
		}
	}
	c.W.WriteInt(n)
}

func cmdType(c *Ctx, args [][]byte) {
	c.W.WriteStatus(c.Tx.TypeOf(c.Tx.KeyString(args[1])).String())
}

// keyMatcher returns a filter for a MATCH pattern; a lone "*" matches every
// key, the empty key included, as Redis special-cases it.
func keyMatcher(pattern []byte) func(key string) bool {
	if len(pattern) == 1 && pattern[0] == '*' {
		return func(string) bool { return true }
	}
	return func(key string) bool { return GlobMatch(pattern, key, false) }
}

func cmdKeys(c *Ctx, args [][]byte) {
	match := keyMatcher(args[1])
	var keys []string
	c.Tx.ScanKeys("", func(k string, _ store.Type) bool {
		if match(k) {
			keys = append(keys, k)
		}
		return true
	})
	c.W.WriteArray(len(keys))
	for _, k := range keys {
		c.W.WriteBulkString(k)
	}
}

func cmdRandomKey(c *Ctx, args [][]byte) {
	k, ok := c.Tx.RandomKey()
	if !ok {
		c.W.WriteNull()
		return
	}
	c.W.WriteBulkString(k)
}

// cmdRename serves RENAME and RENAMENX.
func cmdRename(c *Ctx, args [][]byte) {
	nx := c.Name == "renamenx"
	src, dst := string(args[1]), string(args[2])
	if !c.Tx.Exists(src) {
		c.Error(ErrNoSuchKey)
		return
	}
	if src == dst {
		if nx {
			c.W.WriteInt(0)
		} else {
			c.OK()
		}
		return
	}
	if nx && c.Tx.Exists(dst) {
		c.W.WriteInt(0)
		return
	}
	c.Tx.Rename(src, dst)
	if nx {
		c.W.WriteInt(1)
	} else {
		c.OK()
	}
}

// cmdCopy is COPY source destination [DB destination-db] [REPLACE].
func cmdCopy(c *Ctx, args [][]byte) {
	dstDB := c.Tx.Selected()
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case EqualFold(args[i], "replace"):
			replace = true
		case EqualFold(args[i], "db") && i+1 < len(args):
			n, ok := ParseInt(args[i+1])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			if n < 0 || n >= int64(c.Tx.Databases()) {
				c.Error(ErrDBIndex)
				return
			}
			dstDB = int(n)
			i++
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	src, dst := string(args[1]), string(args[2])
	if src == dst && dstDB == c.Tx.Selected() {
		c.Error(ErrSameObject)
		return
	}
	if c.Tx.Copy(src, dstDB, dst, replace) {
		c.W.WriteInt(1)
	} else {
		c.W.WriteInt(0)
	}
}

// cmdMove is MOVE key db: COPY to the other database, then delete.
func cmdMove(c *Ctx, args [][]byte) {
	db, ok := parseDBIndex(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if db < 0 || db >= int64(c.Tx.Databases()) {
		c.Error(ErrDBIndex)
		return
	}
	if int(db) == c.Tx.Selected() {
		c.Error(ErrSameObject)
		return
	}
	key := c.Tx.KeyString(args[1])
	if c.Tx.Copy(key, int(db), key, false) {
		c.Tx.Delete(key)
		c.W.WriteInt(1)
	} else {
		c.W.WriteInt(0)
	}
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

func cmdSwapDB(c *Ctx, args [][]byte) {
	a, ok := parseDBIndex(args[1])
	if !ok {
		c.Error(ErrFirstDBIndex)
		return
	}
	b, ok := parseDBIndex(args[2])
	if !ok {
		c.Error(ErrSecondDBIndex)
		return
	}
	if a < 0 || a >= int64(c.Tx.Databases()) || b < 0 || b >= int64(c.Tx.Databases()) {
		c.Error(ErrDBIndex)
		return
	}
	c.Tx.SwapDB(int(a), int(b))
	c.OK()
}

// parseDBIndex reads a database index as Redis's getIntFromObject: an
// integer that fits in 32 bits.
func parseDBIndex(b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	if !ok || n != int64(int32(n)) {
		return 0, false
	}
	return n, true
}
