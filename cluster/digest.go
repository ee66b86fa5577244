package cluster

import (
	"time"

	"github.com/hashicorp/raft"
)

// The nodes check that they hold the same store. Now and then (digestEvery,
// when entries were applied since the last check) the leader hashes its
// store with nothing of its own on its way to the cluster and proposes the
// hash (a 'D' entry) before any further frame (store.DigestSettled); each
// follower, applying the entry, hashes its own store, which then holds
// exactly the entries before it, and compares. A follower that differs
// logs it at error level and counts it (RAFT STATUS digest_mismatches,
// INFO replication cluster_digest_mismatches, /metrics
// qlessd_cluster_digest_mismatches_total). The store keeps its digest as
// it is written (store/digest.go), so taking it costs nothing under its
// lock.

const digestEvery = time.Minute

type digestEntry struct {
	From   string `json:"from"`
	Digest string `json:"digest"`
}

func encodeDigest(clock int64, d digestEntry) []byte { return encodeJSONEntry(entryDigest, clock, d) }

// checkDigests runs on every node; it proposes while this one leads.
func (n *Node) checkDigests() {
	defer n.wg.Done()
	every := digestEvery
	if n.hooks.digestEvery > 0 {
		every = n.hooks.digestEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var last uint64
	for {
		select {
		case <-n.done:
			return
		case <-t.C:
		}
		at := n.raft.AppliedIndex()
		if !n.serving() || at == last {
			continue
		}
		if n.proposeDigest() {
			last = at
		}
	}
}

// proposeDigest puts the leader's hash in the log; false when it could not
// (writes on their way, or no longer leading).
func (n *Node) proposeDigest() bool {
	var f raft.ApplyFuture
	ok := n.db.DigestSettled(func(digest string) {
		// Queued under the store's lock; its commit is waited for with
		// the store's transactions going on.
		f = n.raft.Apply(encodeDigest(n.now(), digestEntry{From: n.opts.NodeID, Digest: digest}), 5*time.Second)
	})
	return ok && n.await(f, 5*time.Second+n.electionBound()) == nil
}

// compareDigest checks this node's store against the leader's hash, at
// the same log index. A node with writes of its own in flight (it led
// until a moment ago) has not settled yet and skips the check.
func (n *Node) compareDigest(index uint64, d digestEntry) {
	if d.From == n.opts.NodeID || !n.db.ReadOnly() || !n.db.Settled() || n.healing.Load() || index <= n.quietUntil.Load() {
		return
	}
	mine := n.db.Digest()
	if len(mine) != len(d.Digest) {
		return // a leader of a version that hashed stores otherwise
	}
	if mine == d.Digest {
		n.digestMatches.Add(1)
		return
	}
	n.digestMismatches.Add(1)
	n.log.Error("this node's store differs from the leader's at the same log index", "index", index, "leader", d.From,
		"leader_digest", d.Digest, "digest", mine)
	n.startHeal()
}
