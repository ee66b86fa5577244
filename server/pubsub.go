package server

import (
	"sort"
	"sync"

	"github.com/qlessd/qlessd/commands"
	"github.com/tidwall/redcon"
)

// pubsub is the registry of channel and pattern subscriptions. Messages are
// handed to each subscriber's outbox, so delivery never waits on a socket.
type pubsub struct {
	mu       sync.RWMutex
	channels map[string][]*session // subscribers in subscription order
	patterns map[string][]*session
	shards   map[string][]*session
	patOrder []string // patterns in first-subscription order

	// order serialises deliveries: a write transaction takes its place
	// before it commits, so messages reach subscribers in commit order.
	order *deliveryQueue
}

func newPubSub() *pubsub {
	ps := &pubsub{channels: map[string][]*session{}, patterns: map[string][]*session{}, shards: map[string][]*session{}}
	ps.order = newDeliveryQueue(ps.deliver)
	return ps
}

// count returns how many subscriptions a message on channel would reach.
func (ps *pubsub) count(channel string) int64 {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	n := int64(len(ps.channels[channel]))
	for _, p := range ps.patOrder {
		if commands.GlobMatch(p, channel, false) {
			n += int64(len(ps.patterns[p]))
		}
	}
	return n
}

// deliver hands committed messages to subscribers, in publish order. It is
// called by ps.order.
func (ps *pubsub) deliver(msgs []commands.Message) {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for _, m := range msgs {
		if m.Shard {
			if subs := ps.shards[m.Channel]; len(subs) > 0 {
				b := redcon.AppendArray(nil, 3)
				b = redcon.AppendBulkString(b, "smessage")
				b = redcon.AppendBulkString(b, m.Channel)
				b = redcon.AppendBulkString(b, m.Payload)
				sendMessage(subs, b)
			}
			continue
		}
		if subs := ps.channels[m.Channel]; len(subs) > 0 {
			b := redcon.AppendArray(nil, 3)
			b = redcon.AppendBulkString(b, "message")
			b = redcon.AppendBulkString(b, m.Channel)
			b = redcon.AppendBulkString(b, m.Payload)
			sendMessage(subs, b)
		}
		for _, p := range ps.patOrder {
			subs := ps.patterns[p]
			if len(subs) == 0 || !commands.GlobMatch(p, m.Channel, false) {
				continue
			}
			b := redcon.AppendArray(nil, 4)
			b = redcon.AppendBulkString(b, "pmessage")
			b = redcon.AppendBulkString(b, p)
			b = redcon.AppendBulkString(b, m.Channel)
			b = redcon.AppendBulkString(b, m.Payload)
			sendMessage(subs, b)
		}
	}
}

// sendMessage queues message b, encoded as a RESP2 array, to subs; those
// speaking RESP3 get it as a push frame, which differs in its first byte.
func sendMessage(subs []*session, b []byte) {
	var push []byte
	for _, s := range subs {
		if !s.resp3.Load() {
			s.out.message(b)
			continue
		}
		if push == nil {
			push = append([]byte(nil), b...)
			push[0] = '>'
		}
		s.out.message(push)
	}
}

// publish delivers msgs now, in order with every other delivery.
func (ps *pubsub) publish(msgs []commands.Message) {
	if len(msgs) == 0 {
		return
	}
	ps.order.finish(ps.order.reserve(msgs), true)
}

// add subscribes sess to name; it reports false when it already was.
// ps.mu is held.
func (ps *pubsub) add(sess *session, kind commands.SubKind, name string) bool {
	mine, all := ps.maps(sess, kind)
	pattern := kind == commands.SubPattern
	if _, ok := mine[name]; ok {
		return false
	}
	mine[name] = struct{}{}
	if pattern && len(all[name]) == 0 {
		ps.patOrder = append(ps.patOrder, name)
	}
	all[name] = append(all[name], sess)
	return true
}

// remove unsubscribes sess from name; it reports false when it was not
// subscribed. ps.mu is held.
func (ps *pubsub) remove(sess *session, kind commands.SubKind, name string) bool {
	mine, all := ps.maps(sess, kind)
	pattern := kind == commands.SubPattern
	if _, ok := mine[name]; !ok {
		return false
	}
	delete(mine, name)
	subs := all[name]
	for i, s := range subs {
		if s == sess {
			subs = append(subs[:i:i], subs[i+1:]...)
			break
		}
	}
	if len(subs) > 0 {
		all[name] = subs
		return true
	}
	delete(all, name)
	if pattern {
		for i, p := range ps.patOrder {
			if p == name {
				ps.patOrder = append(ps.patOrder[:i:i], ps.patOrder[i+1:]...)
				break
			}
		}
	}
	return true
}

// maps returns the session's and the registry's subscriptions of a kind.
func (ps *pubsub) maps(sess *session, kind commands.SubKind) (map[string]struct{}, map[string][]*session) {
	switch kind {
	case commands.SubPattern:
		return sess.patterns, ps.patterns
	case commands.SubShard:
		return sess.shards, ps.shards
	}
	return sess.channels, ps.channels
}

// channelNames lists active channels matching pattern (all when empty).
func (ps *pubsub) channelNames(kind commands.SubKind, pattern string, all bool) []string {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	var out []string
	_, reg := ps.maps(&session{}, kind)
	for ch := range reg {
		if all || commands.GlobMatch(pattern, ch, false) {
			out = append(out, ch)
		}
	}
	sort.Strings(out)
	return out
}

func (ps *pubsub) numSub(kind commands.SubKind, channel string) int64 {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	_, reg := ps.maps(&session{}, kind)
	return int64(len(reg[channel]))
}

func (ps *pubsub) numPat() int64 {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return int64(len(ps.patterns))
}
