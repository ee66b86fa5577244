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
		if due := queuesWithTTLDue(srv.Store(), float64(time.Now().UnixMicro())/1e6); len(due) > 0 {
			args := append([][]byte{[]byte("qless"), []byte("expire"), clockNow()}, due...)
			srv.RunInternal(args...)
		}
	}
}

// queuesWithTTLDue lists the queues (of ql:queues) holding a job whose
// TTL is past now.
func queuesWithTTLDue(db *store.DB, now float64) [][]byte {
	var due [][]byte
	db.View(func(tx *store.Tx) error {
		queues, err := tx.OpenZSet("ql:queues")
		if err != nil {
			return nil
		}
		defer queues.Release()
		queues.Ascend(func(q store.Entry) bool {
			ttl, err := tx.OpenZSet(queueKey(q.Member, "ttl"))
			if err != nil {
				return true
			}
			ttl.RangeByScore(store.ScoreBound{Value: math.Inf(-1)}, store.ScoreBound{Value: now}, false, func(store.Entry) bool {
				due = append(due, []byte(q.Member))
				return false
			})
			ttl.Release()
			return true
		})
		return nil
	})
	return due
}
