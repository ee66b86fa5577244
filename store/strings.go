package store

// GetString returns a string key's value. ok is false when the key is absent;
// err is ErrWrongType when it holds another type.
func (tx *Tx) GetString(key string) (val string, ok bool, err error) {
	m, ok, err := tx.lookupType(key, TypeString)
	if !ok || err != nil {
		return "", false, err
	}
	return m.Payload, true, nil
}

// SetString stores a string, replacing any value of any type. expireAt is
// the new deadline in unix ms (0 for none) unless keepTTL keeps the old one.
func (tx *Tx) SetString(key, val string, expireAt int64, keepTTL bool) {
	old, existed := tx.lookup(key)
	if keepTTL && existed {
		expireAt = old.ExpireAt
	}
	if existed && old.Type != TypeString {
		tx.remove(key, old)
		existed = false
	}
	tx.putMeta(key, old, existed, Meta{Type: TypeString, ExpireAt: expireAt, Payload: val})
}
