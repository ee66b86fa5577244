package luatable

import "sync"

// Order appends to dst, and returns, the order in which lua_next visits
// the keys of a table made by lua_createtable(L, 0, hint) into which keys
// were then set, in order, each to a non-nil value. Values are indexes
// into keys; a repeated key appears once, at its first index.
func Order(hint int, keys []string, dst []int) []int {
	t := tables.Get().(*Table)
	dst = t.Order(hint, keys, dst)
	if cap(t.node)+cap(t.spare)+cap(t.hashes) > maxPooledNodes {
		*t = Table{}
	}
	tables.Put(t)
	return dst
}

// maxPooledNodes bounds the buffers a pooled Table keeps, so one huge
// table does not pin its memory for the life of the process.
const maxPooledNodes = 1 << 12

var tables = sync.Pool{New: func() any { return new(Table) }}

// Order is the package's Order using t's buffers, for callers that keep a
// Table rather than share the pool.
func (t *Table) Order(hint int, keys []string, dst []int) []int {
	t.Reset(hint, keys)
	// Hashing every key first lets the CPU overlap the hashes, which are
	// independent, rather than wait on each before its insertion.
	if cap(t.hashes) < len(keys) {
		t.hashes = make([]uint32, len(keys))
	}
	hashes := t.hashes[:len(keys)]
	for i, k := range keys {
		hashes[i] = Hash(k)
	}
	for i, h := range hashes {
		t.set(i, h)
	}
	dst = t.AppendOrder(dst)
	t.Release()
	return dst
}
