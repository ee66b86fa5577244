package qless

import (
	"math"
	"time"

	"github.com/qlessd/qlessd/store"
)

// expireEvery is how often jobs whose TTL has passed are looked for.
const expireEvery = time.Second

// expireLoop removes, once a second, the jobs whose TTL has passed in
// queues nobody pops (pop and peek remove their queue's themselves): it
// reads which queues have one due, then runs QLESS expire for those as an
// internal client, so the events and the data file see it as any call.
func expireLoop(srv Server, done <-chan struct{}) {
	t := time.NewTicker(expireEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if srv.Store().ReadOnly() {
			continue // a cluster's follower: the leader expires jobs
		}
		for db, due := range queuesWithTTLDue(srv.Store(), float64(time.Now().UnixMicro())/1e6) {
			srv.RunInternal(db, append([][]byte{[]byte("qless"), []byte("expire"), clockNow()}, due...)...)
		}
	}
}

// queuesWithTTLDue lists, by database, the queues (of ql:queues) holding a
// job whose TTL is past now.
func queuesWithTTLDue(db *store.DB, now float64) map[int][][]byte {
	due := map[int][][]byte{}
	db.View(func(tx *store.Tx) error {
		for d := 0; d < tx.Databases(); d++ {
			tx.Select(d)
			for _, q := range zsetMembers(tx, queuesKey) {
				if ttlDue(tx, queueKey(q, "ttl"), now) {
					due[d] = append(due[d], []byte(q))
				}
			}
		}
		return nil
	})
	return due
}

// ttlDue reports whether the sorted set at key has a member scored at or
// before now.
func ttlDue(tx *store.Tx, key string, now float64) bool {
	z, err := tx.OpenZSet(key)
	if err != nil {
		return false
	}
	defer z.Release()
	due := false
	z.RangeByScore(store.ScoreBound{Value: math.Inf(-1)}, store.ScoreBound{Value: now}, false, func(store.Entry) bool {
		due = true
		return false
	})
	return due
}
