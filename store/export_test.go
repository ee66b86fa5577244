package store

// PutTypeForTest creates a key of type t with no elements, so tests of the
// string and key commands can meet other types before those groups exist.
func (tx *Tx) PutTypeForTest(key string, t Type) {
	tx.putMeta(key, Meta{}, false, Meta{Type: t, Payload: "header"})
}
