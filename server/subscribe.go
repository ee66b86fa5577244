package server

import (
	"sort"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// Subscribe implements SUBSCRIBE and PSUBSCRIBE. Registration and the
// confirmations happen under the registry lock, and the outbox parks
// messages until the confirmations are out, so none can overtake them.
func (s *session) Subscribe(c *commands.Ctx, kind commands.SubKind, names [][]byte) {
	ps := s.srv.pubsub
	word := [...]string{"subscribe", "psubscribe", "ssubscribe"}[kind]
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if u := s.user.Load(); u != nil && !u.MaySubscribe(kind == commands.SubPattern, names) {
		// An ACL SETUSER took a channel away since the command's check:
		// the connection ends as it would have had it subscribed first.
		s.closeAfterReply = true
		return
	}
	if s.out == nil {
		s.out = newOutbox(s.srv.pubsubLimit(), s.overflowed)
	}
	for _, n := range names {
		ps.add(s, kind, string(n))
		subReply(c.W, word, n, s.countFor(kind))
	}
}

// Unsubscribe implements UNSUBSCRIBE and PUNSUBSCRIBE; with no names it
// leaves every channel (or pattern), and says so even when there was none.
func (s *session) Unsubscribe(c *commands.Ctx, kind commands.SubKind, names [][]byte) {
	ps := s.srv.pubsub
	word := [...]string{"unsubscribe", "punsubscribe", "sunsubscribe"}[kind]
	mine, _ := ps.maps(s, kind)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(names) == 0 {
		all := make([]string, 0, len(mine))
		for n := range mine {
			all = append(all, n)
		}
		sort.Strings(all)
		if len(all) == 0 {
			subReply(c.W, word, nil, s.countFor(kind))
		}
		for _, n := range all {
			ps.remove(s, kind, n)
			subReply(c.W, word, []byte(n), s.countFor(kind))
		}
		return
	}
	for _, n := range names {
		ps.remove(s, kind, string(n))
		subReply(c.W, word, n, s.countFor(kind))
	}
}

func subReply(w resp.Writer, kind string, name []byte, count int) {
	w.WritePush(3)
	w.WriteBulkString(kind)
	if name == nil {
		w.WriteNull()
	} else {
		w.WriteBulk(name)
	}
	w.WriteInt(int64(count))
}

// unsubscribeAll leaves every channel and pattern without replying
// (disconnect, RESET).
func (s *Server) unsubscribeAll(sess *session) {
	s.pubsub.mu.Lock()
	defer s.pubsub.mu.Unlock()
	for n := range sess.channels {
		s.pubsub.remove(sess, commands.SubChannel, n)
	}
	for n := range sess.patterns {
		s.pubsub.remove(sess, commands.SubPattern, n)
	}
	for n := range sess.shards {
		s.pubsub.remove(sess, commands.SubShard, n)
	}
}

func (s *Server) pubsubLimit() OutputLimit {
	if s.cfg.PubSubLimit != nil {
		return *s.cfg.PubSubLimit
	}
	return DefaultPubSubLimit
}

// PubSubChannels implements commands.PubSubInfo.
func (s *Server) PubSubChannels(kind commands.SubKind, pattern []byte) []string {
	return s.pubsub.channelNames(kind, string(pattern), pattern == nil)
}

// PubSubNumSub implements commands.PubSubInfo.
func (s *Server) PubSubNumSub(kind commands.SubKind, channel string) int64 {
	return s.pubsub.numSub(kind, channel)
}

// PubSubNumPat implements commands.PubSubInfo.
func (s *Server) PubSubNumPat() int64 { return s.pubsub.numPat() }
