package store

// lookedUp is a key a reading command looked up, and whether it was there.
type lookedUp struct {
	key   string
	found bool
}

// RecordLookups starts recording the keys looked up, for keyspace_hits and
// keyspace_misses: Redis counts each key argument a reading command looks
// up (LookedUp), not the command's own extra lookups.
func (tx *Tx) RecordLookups() {
	tx.counting = true
	tx.dropLookups()
}

// Lookups returns how many lookups were recorded.
func (tx *Tx) Lookups() int { return len(tx.looked) }

// LookedUp reports whether key was looked up since RecordLookups, and if
// so whether it was there the first time.
func (tx *Tx) LookedUp(key []byte) (looked, found bool) {
	if len(tx.looked) > 16 {
		if tx.lookedMap == nil {
			tx.lookedMap = make(map[string]bool, len(tx.looked))
			for i := len(tx.looked) - 1; i >= 0; i-- {
				tx.lookedMap[tx.looked[i].key] = tx.looked[i].found
			}
		}
		found, looked = tx.lookedMap[string(key)]
		return looked, found
	}
	for _, l := range tx.looked {
		if l.key == string(key) {
			return true, l.found
		}
	}
	return false, false
}

// StopLookups stops recording and forgets what was recorded.
func (tx *Tx) StopLookups() {
	tx.counting = false
	tx.dropLookups()
}

func (tx *Tx) dropLookups() {
	clear(tx.looked)
	tx.looked = tx.looked[:0]
	tx.lookedMap = nil
}

func (tx *Tx) countLookup(key string, found bool) {
	tx.looked = append(tx.looked, lookedUp{key, found})
}
