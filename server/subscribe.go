package server

import (
	"sort"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// Subscribe implements SUBSCRIBE and PSUBSCRIBE. Registration and the
// confirmations happen under the registry lock, and the outbox parks
// messages until the confirmations are out, so none can overtake them.
func (s *session) Subscribe(c *commands.Ctx, pattern bool, names [][]byte) {
	ps := s.srv.pubsub
	kind := "subscribe"
	if pattern {
		kind = "psubscribe"
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if s.out == nil {
		s.out = newOutbox(s.srv.pubsubLimit(), s.overflowed)
	}
	for _, n := range names {
		ps.add(s, pattern, string(n))
		subReply(c.W, kind, n, s.subsLocked())
	}
}

// Unsubscribe implements UNSUBSCRIBE and PUNSUBSCRIBE; with no names it
// leaves every channel (or pattern), and says so even when there was none.
func (s *session) Unsubscribe(c *commands.Ctx, pattern bool, names [][]byte) {
	ps := s.srv.pubsub
	kind, mine := "unsubscribe", s.channels
	if pattern {
		kind, mine = "punsubscribe", s.patterns
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(names) == 0 {
		all := make([]string, 0, len(mine))
		for n := range mine {
			all = append(all, n)
		}
		sort.Strings(all)
		if len(all) == 0 {
			subReply(c.W, kind, nil, s.subsLocked())
		}
		for _, n := range all {
			ps.remove(s, pattern, n)
			subReply(c.W, kind, []byte(n), s.subsLocked())
		}
		return
	}
	for _, n := range names {
		ps.remove(s, pattern, string(n))
		subReply(c.W, kind, n, s.subsLocked())
	}
}

func subReply(w resp.Writer, kind string, name []byte, count int) {
	w.WriteArray(3)
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
		s.pubsub.remove(sess, false, n)
	}
	for n := range sess.patterns {
		s.pubsub.remove(sess, true, n)
	}
}

func (s *Server) pubsubLimit() OutputLimit {
	if s.cfg.PubSubLimit != nil {
		return *s.cfg.PubSubLimit
	}
	return DefaultPubSubLimit
}

// PubSubChannels implements commands.PubSubInfo.
func (s *Server) PubSubChannels(pattern []byte) []string {
	return s.pubsub.channelNames(string(pattern), pattern == nil)
}

// PubSubNumSub implements commands.PubSubInfo.
func (s *Server) PubSubNumSub(channel string) int64 { return s.pubsub.numSub(channel) }

// PubSubNumPat implements commands.PubSubInfo.
func (s *Server) PubSubNumPat() int64 { return s.pubsub.numPat() }
