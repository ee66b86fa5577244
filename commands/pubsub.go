package commands

func registerPubSub(t *Table) {
	t.Add(
		&Cmd{Name: "subscribe", Arity: -2, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK | Graduates, Run: subscriber(SubChannel, true)},
		&Cmd{Name: "psubscribe", Arity: -2, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK | Graduates, Run: subscriber(SubPattern, true)},
		&Cmd{Name: "ssubscribe", Arity: -2, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK | Graduates, FirstKey: 1, LastKey: -1, Step: 1, Run: subscriber(SubShard, true)},
		&Cmd{Name: "unsubscribe", Arity: -1, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK, Run: subscriber(SubChannel, false)},
		&Cmd{Name: "punsubscribe", Arity: -1, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK, Run: subscriber(SubPattern, false)},
		&Cmd{Name: "sunsubscribe", Arity: -1, Flags: PubSubOK | NoScript | Loading | Stale | NoTx | SubscribedOK, FirstKey: 1, LastKey: -1, Step: 1, Run: subscriber(SubShard, false)},
		&Cmd{Name: "publish", Arity: 3, Flags: PubSubOK | Loading | Stale | Fast | MayReplicate | NoTx, Run: cmdPublish},
		&Cmd{Name: "spublish", Arity: 3, Flags: PubSubOK | Loading | Stale | Fast | MayReplicate | NoTx, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdSPublish},
		&Cmd{Name: "pubsub", Arity: -2, Flags: NoTx, Run: cmdPubSub},
	)
}

func subscriber(kind SubKind, sub bool) func(c *Ctx, args [][]byte) {
	return func(c *Ctx, args [][]byte) {
		conn := c.Conn()
		if conn == nil {
			c.Error(ErrScriptNotAllowed)
			return
		}
		if sub {
			conn.Subscribe(c, kind, args[1:])
		} else {
			conn.Unsubscribe(c, kind, args[1:])
		}
	}
}

// cmdPublish queues the message; the server delivers it once the command
// (or the transaction around it) has committed.
func cmdPublish(c *Ctx, args [][]byte) {
	c.W.WriteInt(c.Publish(string(args[1]), string(args[2])))
}

// cmdSPublish is PUBLISH for shard channels.
func cmdSPublish(c *Ctx, args [][]byte) {
	var n int64
	if info, ok := c.Env.(PubSubInfo); ok {
		n = info.PubSubNumSub(SubShard, string(args[1]))
	}
	c.published = append(c.published, Message{Channel: string(args[1]), Payload: string(args[2]), Shard: true})
	c.W.WriteInt(n)
}

func cmdPubSub(c *Ctx, args [][]byte) {
	info, _ := c.Env.(PubSubInfo)
	sub := args[1]
	switch {
	case EqualFold(sub, "help"):
		if len(args) != 2 {
			c.Error(WrongArgs("pubsub|help"))
			return
		}
		writeHelp(c, pubsubHelp...)
	case info == nil:
		c.Error(Errorf(ErrUnknownSub, string(sub), "PUBSUB"))
	case EqualFold(sub, "channels"), EqualFold(sub, "shardchannels"):
		if len(args) > 3 {
			c.Error(Errorf(ErrUnknownSubOr, string(sub), "PUBSUB"))
			return
		}
		var pat []byte
		if len(args) == 3 {
			pat = args[2]
		}
		kind := SubChannel
		if EqualFold(sub, "shardchannels") {
			kind = SubShard
		}
		names := info.PubSubChannels(kind, pat)
		c.W.WriteArray(len(names))
		for _, n := range names {
			c.W.WriteBulkString(n)
		}
	case EqualFold(sub, "numsub"), EqualFold(sub, "shardnumsub"):
		kind := SubChannel
		if EqualFold(sub, "shardnumsub") {
			kind = SubShard
		}
		c.W.WriteArray(2 * (len(args) - 2))
		for _, ch := range args[2:] {
			c.W.WriteBulk(ch)
			c.W.WriteInt(info.PubSubNumSub(kind, string(ch)))
		}
	case EqualFold(sub, "numpat"):
		if len(args) != 2 {
			c.Error(WrongArgs("pubsub|numpat"))
			return
		}
		c.W.WriteInt(info.PubSubNumPat())
	default:
		c.Error(Errorf(ErrUnknownSub, string(sub), "PUBSUB"))
	}
}

var pubsubHelp = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
}
