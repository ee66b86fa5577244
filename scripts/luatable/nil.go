package luatable

// SetNil is luaH_set for keys[i] followed by storing nil, as a table
// constructor does for a field whose value is nil: the key takes a node
// (or keeps the one it has) that iteration skips, and that a later key
// whose main position it is takes over.
func (t *Table) SetNil(i int) {
	h := Hash(t.keys[i])
	if n := t.find(t.keys[i], h); n >= 0 {
		t.node[n].val = false
		return
	}
	t.newKey(int32(i+1), h)
	t.node[t.find(t.keys[i], h)].val = false
}

// OrderWithNils is Order for a table some of whose keys were set to nil
// (isNil[i] for keys[i]); those keys are left out of the order.
func OrderWithNils(hint int, keys []string, isNil []bool, dst []int) []int {
	t := tables.Get().(*Table)
	defer tables.Put(t)
	t.Reset(hint, keys)
	for i := range keys {
		if isNil[i] {
			t.SetNil(i)
		} else {
			t.Set(i)
		}
	}
	dst = t.AppendOrder(dst)
	t.Release()
	return dst
}
