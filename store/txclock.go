package store

import "time"

// Tick re-reads the transaction's clock. The server runs the commands of
// several clients in one transaction; each command must see the time it
// runs at, not the time the transaction began.
func (tx *Tx) Tick() { tx.now = time.Now().UnixMilli() }
