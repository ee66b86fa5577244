package commands

import (
	"math"
	"math/rand/v2"
)

// HRANDFIELD, SRANDMEMBER and SPOP: a positive count asks for distinct
// elements, a negative one for that many independent picks.

// hsParseRandCount reads a count in [-LONG_MAX, LONG_MAX], replying on error.
func hsParseRandCount(c *Ctx, b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	if !ok {
		c.Error(ErrNotInt)
		return 0, false
	}
	if n == math.MinInt64 {
		c.Error(Errorf(ErrRangeBetween, -math.MaxInt64, math.MaxInt64))
		return 0, false
	}
	return n, true
}

// hsPickDistinct returns k distinct indexes of [0,n) in random order.
func hsPickDistinct(n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + rand.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx[:k]
}

func cmdHRandField(c *Ctx, args [][]byte) {
	key := string(args[1])
	if len(args) == 2 {
		pairs, err := c.Tx.HGetAll(key)
		switch {
		case err != nil:
			c.StoreErr(err)
		case len(pairs) == 0:
			c.W.WriteNull()
		default:
			c.W.WriteBulkString(pairs[2*rand.IntN(len(pairs)/2)])
		}
		return
	}
	count, ok := hsParseRandCount(c, args[2])
	if !ok {
		return
	}
	withValues := false
	if len(args) > 4 || (len(args) == 4 && !EqualFold(args[3], "withvalues")) {
		c.Error(ErrSyntax)
		return
	} else if len(args) == 4 {
		withValues = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			c.Error(ErrValueRange)
			return
		}
	}
	pairs, err := c.Tx.HGetAll(key)
	if err != nil {
		c.StoreErr(err)
		return
	}
	n := len(pairs) / 2
	head := c.W.WriteArray
	if withValues {
		head = c.W.WritePairs
	}
	write := func(i int) {
		if withValues {
			c.W.WritePair()
		}
		c.W.WriteBulkString(pairs[2*i])
		if withValues {
			c.W.WriteBulkString(pairs[2*i+1])
		}
	}
	switch {
	case n == 0 || count == 0:
		c.W.WriteArray(0)
	case count < 0:
		head(int(-count))
		for i := int64(0); i < -count; i++ {
			write(rand.IntN(n))
		}
	case count >= int64(n):
		head(n)
		for i := 0; i < n; i++ {
			write(i)
		}
	default:
		picks := hsPickDistinct(n, int(count))
		head(len(picks))
		for _, i := range picks {
			write(i)
		}
	}
}

// oneRandomMember picks a member of set key for the count-less SRANDMEMBER
// and SPOP; when there is none it has already replied (nil or the error).
func oneRandomMember(c *Ctx, key string) (string, bool) {
	members, _, err := c.Tx.SMembers(key)
	switch {
	case err != nil:
		c.StoreErr(err)
	case len(members) == 0:
		c.W.WriteNull()
	default:
		return members[rand.IntN(len(members))], true
	}
	return "", false
}

func cmdSRandMember(c *Ctx, args [][]byte) {
	key := string(args[1])
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	if len(args) == 2 {
		if m, ok := oneRandomMember(c, key); ok {
			c.W.WriteBulkString(m)
		}
		return
	}
	count, ok := hsParseRandCount(c, args[2])
	if !ok {
		return
	}
	members, _, err := c.Tx.SMembers(key)
	if err != nil {
		c.StoreErr(err)
		return
	}
	n := len(members)
	switch {
	case n == 0 || count == 0:
		c.W.WriteArray(0)
	case count < 0:
		c.W.WriteArray(int(-count))
		for i := int64(0); i < -count; i++ {
			c.W.WriteBulkString(members[rand.IntN(n)])
		}
	case count >= int64(n):
		hsWriteArray(c, hsBuiltSetOrder(members)) // an array, not a set, as Redis 7.0
	default:
		picks := hsPickDistinct(n, int(count))
		c.W.WriteArray(len(picks))
		for _, i := range picks {
			c.W.WriteBulkString(members[i])
		}
	}
}

func cmdSPop(c *Ctx, args [][]byte) {
	key := string(args[1])
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	if len(args) == 2 {
		if m, ok := oneRandomMember(c, key); ok {
			c.Tx.SRem(key, m)
			c.W.WriteBulkString(m)
		}
		return
	}
	count, ok := ParseInt(args[2])
	if !ok || count < 0 {
		c.Error(ErrPositive)
		return
	}
	members, _, err := c.Tx.SMembers(key)
	if err != nil {
		c.StoreErr(err)
		return
	}
	n := len(members)
	switch {
	case n == 0 || count == 0:
		c.W.WriteSet(0)
	case count >= int64(n):
		c.Tx.Delete(key)
		hsWriteMembers(c, hsBuiltSetOrder(members))
	default:
		picks := hsPickDistinct(n, int(count))
		popped := make([]string, len(picks))
		for i, p := range picks {
			popped[i] = members[p]
		}
		c.Tx.SRem(key, popped...)
		hsWriteMembers(c, popped)
	}
}
