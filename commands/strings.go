package commands

func registerStrings(t *Table) {
	t.Add(
		&Cmd{Name: "get", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdGet},
		&Cmd{Name: "set", Arity: -3, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSet},
	)
}

func cmdGet(c *Ctx, args [][]byte) {
	v, ok, err := c.Tx.GetString(string(args[1]))
	switch {
	case err != nil:
		c.StoreErr(err)
	case !ok:
		c.W.WriteNull()
	default:
		c.W.WriteBulkString(v)
	}
}

// cmdSet is the plain form for now; options come with the strings group.
func cmdSet(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		c.Error(ErrSyntax)
		return
	}
	c.Tx.SetString(string(args[1]), string(args[2]), 0, false)
	c.OK()
}
