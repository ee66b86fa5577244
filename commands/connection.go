package commands

// Connection-level commands. Their state lives in the server's session, so
// each one hands over to the calling connection (Conn); SELECT only needs
// Session and so also works inside scripts.
func registerConnection(t *Table) {
	const conn = NoScript | Loading | Stale | NoTx
	t.Add(
		&Cmd{Name: "multi", Arity: 1, Flags: conn | Fast | AllowBusy | RunsInMulti | Graduates, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Multi(c) })},
		&Cmd{Name: "exec", Arity: 1, Flags: conn | RunsInMulti | RunsQueued, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Exec(c) })},
		&Cmd{Name: "discard", Arity: 1, Flags: conn | Fast | AllowBusy | RunsInMulti | StandInAnswers, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Discard(c) })},
		&Cmd{Name: "watch", Arity: -2, Flags: NoScript | Loading | Stale | Fast | AllowBusy | ReadOnly | RunsInMulti, FirstKey: 1, LastKey: -1, Step: 1,
			Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Watch(c, args[1:]) })},
		&Cmd{Name: "unwatch", Arity: 1, Flags: conn | Fast | AllowBusy | StandInAnswers, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Unwatch(c) })},
		&Cmd{Name: "auth", Arity: -2, Flags: conn | Fast | NoAuth | AllowBusy | StandInAnswers, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Auth(c, args) })},
		&Cmd{Name: "hello", Arity: -1, Flags: conn | Fast | NoAuth | AllowBusy | StandInAnswers, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Hello(c, args) })},
		&Cmd{Name: "client", Arity: -2, Flags: conn | ListedWithSub,
			AdminSubs: []string{"list", "kill", "pause", "unpause", "unblock", "no-evict"},
			Run:       onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Client(c, args) })},
		&Cmd{Name: "reset", Arity: 1, Flags: conn | Fast | NoAuth | AllowBusy | SubscribedOK | RunsInMulti | StandInAnswers, Run: onConn(func(cc Conn, c *Ctx, args [][]byte) { cc.Reset(c) })},
		&Cmd{Name: "quit", Arity: -1, Flags: conn | Fast | NoAuth | AllowBusy | SubscribedOK | RunsInMulti | StandInAnswers | ClosesConn, Run: func(c *Ctx, args [][]byte) { c.OK() }},
		&Cmd{Name: "select", Arity: 2, Flags: Loading | Stale | Fast | NoTx, Run: cmdSelect},
	)
}

func onConn(fn func(cc Conn, c *Ctx, args [][]byte)) func(c *Ctx, args [][]byte) {
	return func(c *Ctx, args [][]byte) {
		cc := c.Conn()
		if cc == nil {
			c.Error(ErrScriptNotAllowed)
			return
		}
		fn(cc, c, args)
	}
}

func cmdSelect(c *Ctx, args [][]byte) {
	i, ok := ParseInt(args[1])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if i < 0 || i >= int64(c.Env.Store().Databases()) || i > 1<<31-1 {
		c.Error(ErrDBIndex)
		return
	}
	c.Sess.SetDB(int(i))
	if c.Tx != nil {
		c.Tx.Select(int(i))
	}
	c.OK()
}
