package luatable

// node is one slot of the node vector; its zero value is a free node.
// Lua 5.1 tells a free node by its nil key (getfreepos) but a taken main
// position by its non-nil value (newkey), and iteration skips nil values,
// so both are kept even though Set only stores non-nil values.
type node struct {
	key  int32  // 1 + index into Table.keys; 0 for a nil key
	next int32  // 1 + index of the next node in the chain; 0 for none
	hash uint32 // the key's hash, as its TString caches it
	val  bool   // the value is non-nil
}

// Table simulates the hash part of one Lua 5.1 table whose keys are all
// strings. Its buffers are kept across Reset, so a Table reused for many
// tables stops allocating once it has grown to the largest of them.
type Table struct {
	keys     []string
	node     []node   // empty while the table uses Lua's shared dummy node
	spare    []node   // the other node buffer, swapped in by rehash
	hashes   []uint32 // Order's scratch
	lastfree int      // getfreepos's cursor: free nodes are only sought below it
}

// Reset empties t into the state lua_createtable(L, 0, hint) leaves, over
// keys, which Set then refers to by index. A hint over 2^26 is a "table
// overflow" in Lua and panics here.
func (t *Table) Reset(hint int, keys []string) {
	t.keys = keys
	t.node = t.nodeVector(t.node, max(hint, 0))
}

// Release drops t's reference to the keys given to Reset, so a kept Table
// does not keep them alive.
func (t *Table) Release() { t.keys = nil }

// nodeVector is setnodevector, reusing buf. An empty vector stands for
// the dummy node, which offers no free node, so the first insertion into
// it rehashes.
func (t *Table) nodeVector(buf []node, size int) []node {
	if size == 0 {
		t.lastfree = 0
		return buf[:0]
	}
	lsize := ceilLog2(size)
	if lsize > maxLogSize {
		panic("luatable: table overflow")
	}
	n := 1 << lsize
	if cap(buf) < n {
		buf = make([]node, n)
	}
	buf = buf[:n]
	clear(buf)
	t.lastfree = n
	return buf
}

// Set is luaH_set for keys[i] followed by storing a non-nil value. It
// returns the index of the key that holds the node: i, or the index of an
// equal key set earlier.
func (t *Table) Set(i int) int { return t.set(i, Hash(t.keys[i])) }

func (t *Table) set(i int, h uint32) int {
	s := t.keys[i]
	if n := t.find(s, h); n >= 0 {
		t.node[n].val = true
		return int(t.node[n].key - 1)
	}
	t.newKey(int32(i+1), h)
	return i
}

// find is luaH_getstr: it walks the chain from the key's main position
// and matches a node by its key alone, whether or not its value is nil.
func (t *Table) find(s string, h uint32) int {
	nodes := t.node
	if len(nodes) == 0 {
		return -1
	}
	for n := int(h & uint32(len(nodes)-1)); ; {
		nd := &nodes[n]
		if nd.hash == h && nd.key != 0 && t.keys[nd.key-1] == s {
			return n
		}
		if nd.next == 0 {
			return -1
		}
		n = int(nd.next - 1)
	}
}

// newKey is newkey plus the value store; with no free node left the
// table rehashes and the set starts over.
func (t *Table) newKey(k int32, h uint32) {
	for !t.insert(k, h) {
		t.rehash()
	}
}

// insert places a new key unless it needs a free node and none is left.
// The dummy node is always taken and offers no free node.
func (t *Table) insert(k int32, h uint32) bool {
	nodes := t.node
	if len(nodes) == 0 {
		return false
	}
	mp := int(h & uint32(len(nodes)-1))
	if nodes[mp].val {
		return t.collide(k, h, mp)
	}
	nodes[mp].key, nodes[mp].hash, nodes[mp].val = k, h, true
	return true
}

// collide places a new key whose main position mp is taken: it evicts an
// occupant that is only there by collision to a free node, or else goes
// to the free node itself, chained after mp.
func (t *Table) collide(k int32, h uint32, mp int) bool {
	f := t.freePosition()
	if f < 0 {
		return false
	}
	nodes := t.node
	if other := int(nodes[mp].hash & uint32(len(nodes)-1)); other != mp {
		for int(nodes[other].next-1) != mp {
			other = int(nodes[other].next - 1)
		}
		nodes[other].next = int32(f + 1)
		nodes[f] = nodes[mp]
		nodes[mp].next = 0
		nodes[mp].val = false
	} else {
		nodes[f].next = nodes[mp].next
		nodes[mp].next = int32(f + 1)
		mp = f
	}
	nodes[mp].key, nodes[mp].hash, nodes[mp].val = k, h, true
	return true
}

// freePosition is getfreepos. A node is free only while its key is nil:
// one whose value was set to nil keeps its key, so removed entries are
// reclaimed by the next rehash, not here, and the cursor never moves up.
func (t *Table) freePosition() int {
	nodes := t.node
	for t.lastfree > 0 {
		t.lastfree--
		if nodes[t.lastfree].key == 0 {
			return t.lastfree
		}
	}
	return -1
}

// rehash sizes the hash part for its live entries plus the one being
// added (string keys never go to the array part), then re-inserts the
// old nodes from the last one down, as resize does.
func (t *Table) rehash() {
	count := 1
	for i := range t.node {
		if t.node[i].val {
			count++
		}
	}
	old := t.node
	t.node = t.nodeVector(t.spare, count)
	for i := len(old) - 1; i >= 0; i-- {
		if old[i].val {
			t.insert(old[i].key, old[i].hash) // the new size leaves room
		}
	}
	t.spare = old
}

// AppendOrder appends the key indexes in lua_next's order: node 0 upward,
// skipping nil values.
func (t *Table) AppendOrder(dst []int) []int {
	for i := range t.node {
		if t.node[i].val {
			dst = append(dst, int(t.node[i].key-1))
		}
	}
	return dst
}
