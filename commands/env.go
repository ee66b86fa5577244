package commands

import "github.com/qlessd/qlessd/store"

// Session is the calling connection as commands see it. The server
// implements it; scripts run with their caller's session.
type Session interface {
	ID() int64
	DB() int
	SetDB(i int)
}

// Env is what the running server provides to commands beyond the store.
type Env interface {
	Store() *store.DB
	// CountSubscribers returns how many subscriptions (channels and
	// patterns) a message on channel would reach now.
	CountSubscribers(channel string) int64
	ServerEnv // INFO, CONFIG, SAVE, SHUTDOWN: commands/serverenv.go
}

// Conn is the connection-level side of a client session: subscriptions,
// transactions, authentication and CLIENT. The server's sessions implement
// it; each method validates its arguments and writes the whole reply.
type Conn interface {
	Subscribe(c *Ctx, kind SubKind, names [][]byte)
	Unsubscribe(c *Ctx, kind SubKind, names [][]byte)
	Multi(c *Ctx)
	Exec(c *Ctx)
	Discard(c *Ctx)
	Watch(c *Ctx, keys [][]byte)
	Unwatch(c *Ctx)
	Auth(c *Ctx, args [][]byte)
	Hello(c *Ctx, args [][]byte)
	Client(c *Ctx, args [][]byte)
	Reset(c *Ctx)
}

// SubKind is what a subscription is to: a channel (SUBSCRIBE), a pattern
// (PSUBSCRIBE) or a shard channel (SSUBSCRIBE).
type SubKind int

const (
	SubChannel SubKind = iota
	SubPattern
	SubShard
)

// PubSubInfo answers PUBSUB; the server's Env implements it.
type PubSubInfo interface {
	// PubSubChannels lists active channels of a kind (SubChannel or
	// SubShard) matching pattern; nil matches all.
	PubSubChannels(kind SubKind, pattern []byte) []string
	PubSubNumSub(kind SubKind, channel string) int64
	PubSubNumPat() int64
}

// Conn returns the calling connection, or nil inside contexts that have
// none (scripts calling connection commands are refused before this).
func (c *Ctx) Conn() Conn {
	cc, _ := c.Sess.(Conn)
	return cc
}
