package commands

import (
	"math"
	"math/rand/v2"

	"github.com/qlessd/qlessd/store"
)

func cmdZRandMember(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		z, ok := openZSet(c, args[1])
		if !ok {
			return
		}
		if z.Len() == 0 {
			c.W.WriteNull()
			return
		}
		r := rand.Int64N(z.Len())
		z.RangeByRank(r, r, false, func(e store.Entry) bool { c.W.WriteBulkString(e.Member); return false })
		return
	}
	n, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if n == math.MinInt64 {
		c.Error(Errorf(ErrRangeBetween, -math.MaxInt64, math.MaxInt64))
		return
	}
	withScores := false
	if len(args) > 4 || (len(args) == 4 && !EqualFold(args[3], "withscores")) {
		c.Error(ErrSyntax)
		return
	}
	if len(args) == 4 {
		withScores = true
		if n < -math.MaxInt64/2 || n > math.MaxInt64/2 {
			c.Error(ErrValueRange)
			return
		}
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	if !z.Exists() || n == 0 {
		c.W.WriteArray(0)
		return
	}
	// Redis walks sets from the high end here (zuiInitIterator).
	var all []store.Entry
	z.Descend(func(e store.Entry) bool { all = append(all, e); return true })
	if n < 0 || n == 1 {
		// With repeats (or a single pick), in random order.
		count := -n
		if n == 1 {
			count = 1
		}
		picks := make([]store.Entry, count)
		for i := range picks {
			picks[i] = all[rand.IntN(len(all))]
		}
		writeEntries(c, picks, withScores)
		return
	}
	if n >= int64(len(all)) {
		// The whole set, highest score first, as Redis does.
		writeEntries(c, all, withScores)
		return
	}
	rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	writeEntries(c, all[:n], withScores)
}
