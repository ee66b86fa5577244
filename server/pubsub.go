package server

import "github.com/qlessd/qlessd/commands"

// pubsub delivers messages to subscribers. Until subscriptions exist it only
// counts and drops.
type pubsub struct{}

func newPubSub() *pubsub { return &pubsub{} }

// count returns how many subscriptions a message on channel would reach.
func (ps *pubsub) count(channel string) int64 { return 0 }

// deliver hands committed messages to subscribers, in publish order.
func (ps *pubsub) deliver(msgs []commands.Message) {}
