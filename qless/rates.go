package qless

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/qlessd/qlessd/store"
)

// rateFree is when the first of the rates holding queue's waiting jobs
// has room again after now: the oldest start in a full window leaves it
// (+Inf: no rate holds them). The rates looked at are the queue's own and
// those of its waiting jobs. A job under two full rates may still be held
// then; the pop run at that time finds so and asks again for the next.
func rateFree(tx *store.Tx, queue string, now float64) float64 {
	first := math.Inf(1)
	if n, _ := tx.SCard(ratesSetKey); n == 0 {
		return first
	}
	names := map[string]bool{queuePrefix(queue): true}
	for _, job := range waitingRates(tx, queue) {
		for _, name := range job {
			names[name] = true
		}
	}
	for name := range names {
		if at := rateFullUntil(tx, name, now); at > now {
			first = min(first, at)
		}
	}
	return first
}

// waitingRates are the rates of each job in queue's work set (nil for a
// job without), in line order.
func waitingRates(tx *store.Tx, queue string) [][]string {
	jids := zsetMembers(tx, queueKey(queue, "work"))
	out := make([][]string, len(jids))
	for i, jid := range jids {
		raw, ok, _ := tx.HGet(jobKey(jid), "rates")
		if ok {
			json.Unmarshal([]byte(raw), &out[i])
		}
	}
	return out
}

// rateHeld is how many of queue's waiting jobs a pop at now would pass
// over for a rate (rate.lua's rate.held): all of them while the queue's
// own rate has no room, else those with a rate of their own that has
// none. While no rate is set it is one SCARD.
func rateHeld(tx *store.Tx, queue string, now float64) int64 {
	if n, _ := tx.SCard(ratesSetKey); n == 0 {
		return 0
	}
	if rateFullUntil(tx, queuePrefix(queue), now) > now {
		return zlen(tx, queueKey(queue, "work"))
	}
	full := map[string]bool{}
	var n int64
	for _, job := range waitingRates(tx, queue) {
		for _, name := range job {
			f, seen := full[name]
			if !seen {
				f = rateFullUntil(tx, name, now) > now
				full[name] = f
			}
			if f {
				n++
				break
			}
		}
	}
	return n
}

// rateFullUntil is when rate name, full at now, has room again: its
// oldest start in the window ending at now leaves it. now itself when it
// has room (or is not set): it holds nothing back.
func rateFullUntil(tx *store.Tx, name string, now float64) float64 {
	cs, ok1, _ := tx.HGet(rateKey(name), "count")
	ss, ok2, _ := tx.HGet(rateKey(name), "seconds")
	count, err1 := strconv.ParseFloat(cs, 64)
	seconds, err2 := strconv.ParseFloat(ss, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return now
	}
	z, err := tx.OpenZSet(rateKey(name) + "-starts")
	if err != nil {
		return now
	}
	defer z.Release()
	var in []float64
	z.RangeByScore(store.ScoreBound{Value: now - seconds, Excl: true}, store.ScoreBound{Value: math.Inf(1)}, false, func(e store.Entry) bool {
		in = append(in, e.Score)
		return true
	})
	if float64(len(in)) < count || count < 1 {
		return now
	}
	// Room comes when all but count-1 of the starts have left: with more
	// starts than count in the window (a rate lowered since) that is a
	// later one's leaving, not the oldest's.
	return in[len(in)-int(count)] + seconds
}
