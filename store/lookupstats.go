package store

// lookedUp is a key a reading command looked up, and whether it was there.
type lookedUp struct {
	key   string
	found bool
}

// RecordLookups starts recording the keys looked up, for keyspace_hits and
// keyspace_misses (CountLookups).
func (tx *Tx) RecordLookups() {
	tx.counting = true
	clear(tx.looked)
	tx.looked = tx.looked[:0]
}

// CountLookups stops recording and counts keys as Redis counts a reading
// command's lookups: each of keys (repeats too) that the command looked
// up is a hit when it was there, a miss when not; keys it did not look up
// (it failed first) count nothing, and neither do its own extra lookups.
func (tx *Tx) CountLookups(keys [][]byte) (hits, misses int64) {
	tx.counting = false
	if len(tx.looked) == 0 {
		return 0, 0
	}
	var byKey map[string]bool
	if len(tx.looked) > 16 {
		byKey = make(map[string]bool, len(tx.looked))
		for i := len(tx.looked) - 1; i >= 0; i-- {
			byKey[tx.looked[i].key] = tx.looked[i].found
		}
	}
	for _, k := range keys {
		found, ok := false, false
		if byKey != nil {
			found, ok = byKey[string(k)]
		} else {
			for _, l := range tx.looked {
				if l.key == string(k) {
					found, ok = l.found, true
					break
				}
			}
		}
		switch {
		case !ok:
		case found:
			hits++
		default:
			misses++
		}
	}
	clear(tx.looked)
	tx.looked = tx.looked[:0]
	return hits, misses
}

func (tx *Tx) countLookup(key string, found bool) {
	tx.looked = append(tx.looked, lookedUp{key, found})
}
