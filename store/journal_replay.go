package store

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/tidwall/btree"
	"github.com/tidwall/buntdb"
)

// replay applies the records of a data file being loaded to an empty
// buntdb, in one transaction that begins with DeleteAll: buntdb then keeps
// no rollback entry per key it changes (it would restore the empty tree),
// where batches of records each kept a map of every key they set.
//
// The items of set and sorted-set members (<data prefix> 'm' <member>) do
// not go into buntdb as they come: a sorted set kept as items holds its
// members in an index (zset_index.go), and inserting a million member
// items into buntdb's tree only to take them out again was most of a
// restart. They are gathered per key instead, the latest record of each
// item winning as it would in buntdb; once every record is applied, the
// members of each sorted set kept as items become its index, built in
// bulk from the members sorted once, and any other such items (a set's
// members, or items of a key that is no sorted set) go into buntdb as they
// would have.
type replay struct {
	btx     *buntdb.Tx
	members map[dbKey]*memberItems
	last    *memberItems // those of the key of the last member record
	run     []itemSet    // set records held back (flushRun)
}

// itemSet is a set record held back.
type itemSet struct{ k, v string }

// maxRun is the most set records held back.
const maxRun = 1024

// memberItems are the member items of one key, read so far. A data file
// rewritten since the set last changed holds each member once, in the
// set's order: those are kept as they come, in arrived, and neither
// hashed nor sorted until the index is built from them. The first record
// that could take one back (a deletion, or an item not of 8 bytes) moves
// them into scores, which from then on holds the latest score of each.
type memberItems struct {
	key     dbKey              // its own copy, never a borrowed one
	arrived []Entry            // in arrival order, while scores is nil
	sorted  bool               // arrived is in strictly increasing order
	scores  map[string]float64 // items of 8 bytes, as sorted-set members are
	other   map[string]string  // items of other lengths
}

// keyed moves the members that arrived into scores, later records of a
// member winning over earlier ones, as they would in buntdb.
func (m *memberItems) keyed() map[string]float64 {
	if m.scores == nil {
		m.scores = make(map[string]float64, len(m.arrived))
		for _, e := range m.arrived {
			m.scores[e.Member] = e.Score
		}
		m.arrived = nil
	}
	return m.scores
}

func newReplay(btx *buntdb.Tx) (*replay, error) {
	if err := btx.DeleteAll(); err != nil {
		return nil, err
	}
	return &replay{btx: btx}, nil
}

// apply applies one record, its strings its own (replayReader).
func (rp *replay) apply(o *loadOp) error {
	if o.op == opSet && !o.isMember {
		if n := len(rp.run); n > 0 && o.k <= rp.run[n-1].k {
			if err := rp.flushRun(); err != nil {
				return err
			}
		}
		rp.run = append(rp.run, itemSet{o.k, o.v})
		if len(rp.run) < maxRun {
			return nil
		}
		return rp.flushRun()
	}
	if !o.isMember {
		if err := rp.flushRun(); err != nil {
			return err
		}
	}
	switch {
	case o.op == opFlush:
		rp.members, rp.last = nil, nil
		return rp.btx.DeleteAll()
	case o.isMember:
		rp.member(o)
	case o.op == opDel:
		rp.btx.Delete(o.k)
	}
	return nil
}

// flushRun sets the items held back. They are set records of keys in
// increasing order, none repeated, with nothing between them that touches
// buntdb, so the order they are set in is free: a data file lists items
// in key order (a rewrite writes them so, and queued jobs' keys mostly
// arrive so), and a tree filled in order leaves every node it splits half
// empty; setting every other item first and then the rest between them
// fills them (BenchmarkLoadJobs: 685 bytes a queued job to 660).
func (rp *replay) flushRun() error {
	for start := range 2 {
		for i := start; i < len(rp.run); i += 2 {
			if _, _, err := rp.btx.Set(rp.run[i].k, rp.run[i].v, nil); err != nil {
				return err
			}
		}
	}
	clear(rp.run)
	rp.run = rp.run[:0]
	return nil
}

// member applies a record of a member item.
func (rp *replay) member(o *loadOp) {
	m := rp.last
	if m == nil || m.key != o.set {
		m = rp.members[o.set]
		if m == nil {
			if o.op != opSet {
				return
			}
			if rp.members == nil {
				rp.members = map[dbKey]*memberItems{}
			}
			m = &memberItems{key: o.set, sorted: true}
			rp.members[o.set] = m
		}
		rp.last = m
	}
	switch {
	case o.op == opDel:
		delete(m.keyed(), o.member)
		delete(m.other, o.member)
	case o.scored && m.scores == nil:
		e := Entry{Member: o.member, Score: o.score}
		if n := len(m.arrived); n > 0 && compareEntries(m.arrived[n-1], e) >= 0 {
			m.sorted = false
		}
		m.arrived = append(m.arrived, e)
	case o.scored:
		delete(m.other, o.member)
		m.scores[o.member] = o.score
	default:
		delete(m.keyed(), o.member)
		if m.other == nil {
			m.other = map[string]string{}
		}
		m.other[o.member] = o.v
	}
}

// finish gives each sorted set kept as items its index and puts every
// other member item into buntdb; it returns the indexes.
func (rp *replay) finish() (map[dbKey]*zindex, error) {
	if err := rp.flushRun(); err != nil {
		return nil, err
	}
	var sets map[dbKey]*zindex
	for k, m := range rp.members {
		mp := memberPrefixOf(k.db, k.key)
		if isItemsZSet(rp.btx, k) {
			if ix := m.index(); ix != nil {
				if sets == nil {
					sets = map[dbKey]*zindex{}
				}
				sets[k] = ix
			}
		} else {
			var b [8]byte
			for member, sc := range m.keyed() {
				binary.BigEndian.PutUint64(b[:], math.Float64bits(sc))
				if _, _, err := rp.btx.Set(mp+member, string(b[:]), nil); err != nil {
					return nil, err
				}
			}
		}
		for member, v := range m.other {
			if _, _, err := rp.btx.Set(mp+member, v, nil); err != nil {
				return nil, err
			}
		}
	}
	rp.members, rp.last = nil, nil
	return sets, nil
}

// isItemsZSet reports whether k's metadata item makes it a sorted set kept
// as items.
func isItemsZSet(btx *buntdb.Tx, k dbKey) bool {
	v, err := btx.Get(metaKey(k.db, k.key))
	m, ok := decodeMeta(v)
	return err == nil && ok && m.Type == TypeZSet && len(m.Payload) == zItemsPayloadLen
}

// index builds the index of a sorted set from its members (nil for none):
// the members sorted once (unless they came sorted, each once), half of
// them appended to the tree's last node, instead of a search of the tree
// per member; the map is made at its final size (one
// grown a member at a time took 56 bytes a member instead of 32).
func (m *memberItems) index() *zindex {
	scores := make(map[string]float64, max(len(m.arrived), len(m.scores)))
	for _, e := range m.arrived {
		scores[e.Member] = e.Score // a later arrival of a member wins
	}
	for member, sc := range m.scores {
		scores[member] = sc
	}
	ents := m.arrived
	if m.scores != nil || !m.sorted || len(scores) != len(ents) {
		ents = make([]Entry, 0, len(scores))
		for member, sc := range scores {
			ents = append(ents, Entry{Member: member, Score: sc})
		}
		slices.SortFunc(ents, compareEntries)
	}
	if len(ents) == 0 {
		return nil
	}
	ix := &zindex{scores: scores, order: btree.NewBTreeGOptions(entryLess, btree.Options{NoLocks: true})}
	// A tree loaded in order splits each full node in two and never
	// touches the left half again: half its room stays empty, 49 bytes a
	// member. Loading every other member and then inserting the rest
	// between them fills each node instead: 24 bytes a member.
	for i := 0; i < len(ents); i += 2 {
		ix.order.Load(ents[i])
	}
	for i := 1; i < len(ents); i += 2 {
		ix.order.Set(ents[i])
	}
	return ix
}

func compareEntries(a, b Entry) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	return strings.Compare(a.Member, b.Member)
}

// splitMemberItem splits the key of a set or sorted-set member's item
// into its key and member; ok is false for any other item.
func splitMemberItem(item string) (k dbKey, member string, ok bool) {
	if len(item) < 3 || item[0] != tagData {
		return dbKey{}, "", false
	}
	n, w := binary.Uvarint([]byte(item[2:min(len(item), 2+binary.MaxVarintLen64)]))
	start := 2 + w
	if w <= 0 || uint64(len(item)-start) <= n || item[start+int(n)] != zTagMember {
		return dbKey{}, "", false
	}
	return dbKey{int(item[1]), item[start : start+int(n)]}, item[start+int(n)+1:], true
}
