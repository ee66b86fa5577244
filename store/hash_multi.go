package store

// HMGet looks key up once and calls fn with each field's value (ok false
// when the field or the key is absent), in the order of fields. qless reads
// a job as one HMGET of a dozen fields, so one metadata lookup instead of
// one per field matters.
func (tx *Tx) HMGet(key string, fields [][]byte, fn func(v string, ok bool)) error {
	m, ok, err := tx.lookupType(key, TypeHash)
	if err != nil {
		return err
	}
	if !ok {
		for range fields {
			fn("", false)
		}
		return nil
	}
	h, start := decodeCollHeader(m.Payload)
	if h.inline() && len(fields) > 1 && len(fields) <= maxOnePassFields {
		// One walk over the pairs answers every field, where a walk per
		// field reads the front of the payload again and again.
		var vals [maxOnePassFields]string
		var found [maxOnePassFields]bool
		left := len(fields)
		forEachPair(m.Payload, start, func(f, v string, _ int) bool {
			for i, field := range fields {
				if !found[i] && string(field) == f {
					vals[i], found[i] = v, true
					left-- // and on: HMGET may name a field twice
				}
			}
			return left > 0
		})
		for i := range fields {
			fn(vals[i], found[i])
		}
		return nil
	}
	for _, field := range fields {
		if !h.inline() {
			v, ok := tx.rawGet(hashFieldKey(tx.sel, key, string(field)))
			fn(v, ok)
			continue
		}
		var val string
		found := false
		forEachPair(m.Payload, start, func(f, v string, _ int) bool {
			if f == string(field) {
				val, found = v, true
				return false
			}
			return true
		})
		fn(val, found)
	}
	return nil
}

// maxOnePassFields bounds the fields HMGet answers in one walk of an
// inline hash (a qless job read names fourteen).
const maxOnePassFields = 32
