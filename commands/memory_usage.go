package commands

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/qlessd/qlessd/store"
)

// memoryUsage is MEMORY USAGE key [SAMPLES n]: an estimate, in bytes, of
// what the key and its value would take in Redis 7.0 (its encodings and
// jemalloc's size classes), so that redis-cli --memkeys and --bigkeys and
// other tools see sizes in proportion. Like Redis, it averages the first n
// elements of a collection (5 by default, all for 0) over its length.
func memoryUsage(c *Ctx, args [][]byte) {
	samples := int64(5)
	for i := 3; i < len(args); i += 2 {
		if !EqualFold(args[i], "samples") || i+1 >= len(args) {
			c.Error(ErrSyntax)
			return
		}
		n, ok := ParseInt(args[i+1])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		if n < 0 {
			c.Error(ErrSyntax)
			return
		}
		samples = n
	}
	var size int64
	found := false
	c.Env.Store().View(func(tx *store.Tx) error {
		tx.Select(c.Sess.DB())
		key := string(args[2])
		size, found = valueSize(tx, key, samples)
		return nil
	})
	if !found {
		c.W.WriteNull()
		return
	}
	c.W.WriteInt(size + keyOverhead(len(args[2])))
}

// keyOverhead is the hash table entry and the key string.
func keyOverhead(keyLen int) int64 { return 24 + alloc(int64(keyLen)+3) }

// alloc rounds n up to jemalloc's size class.
func alloc(n int64) int64 {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) / 16 * 16
	case n <= 4096:
		step := int64(1) << (63 - bits.LeadingZeros64(uint64(n-1)) - 2)
		return (n + step - 1) / step * step
	}
	return (n + 4095) / 4096 * 4096
}

// sampled averages size over the first samples elements (all for 0)
// that each calls fn with, and scales it to count elements.
type sampled struct {
	limit, n, sum int64
}

func (s *sampled) add(size int64) bool {
	s.n++
	s.sum += size
	return s.limit == 0 || s.n < s.limit
}

func (s *sampled) total(count int64) int64 {
	if s.n == 0 {
		return 0
	}
	return s.sum * count / s.n
}

// valueSize estimates key's value; false when there is no key.
func valueSize(tx *store.Tx, key string, samples int64) (int64, bool) {
	s := sampled{limit: samples}
	switch tx.TypeOf(key) {
	case store.TypeString:
		v, _, _ := tx.GetString(key)
		if len(v) <= 44 {
			return alloc(16 + int64(len(v)) + 4), true // embstr: object and string together
		}
		return 16 + alloc(int64(len(v))+9), true
	case store.TypeList:
		n, _ := tx.ListLen(key)
		vals, _ := tx.ListRange(key, 0, max(samples, 1)-1)
		if samples == 0 {
			vals, _ = tx.ListRange(key, 0, -1)
		}
		for _, v := range vals {
			s.add(int64(len(v)) + 2)
		}
		return 48 + (n+127)/128*48 + alloc(s.total(n)), true
	case store.TypeHash:
		n, _ := tx.HLen(key)
		small := n <= 128
		tx.HIterate(key, "", func(f, v string) bool {
			small = small && len(f) <= 64 && len(v) <= 64
			return s.add(int64(len(f)+len(v)) + 4)
		})
		if small {
			return 16 + alloc(s.total(n)+7), true
		}
		return 16 + 64 + n*8 + s.total(n) + n*(24+2*16), true
	case store.TypeSet:
		return setSize(tx, key, &s), true
	case store.TypeZSet:
		return zsetSize(tx, key, &s), true
	}
	return 0, false
}

func setSize(tx *store.Tx, key string, s *sampled) int64 {
	n, _ := tx.SCard(key)
	if ints, _ := tx.SIntset(key); ints {
		// An intset is as wide as its widest member needs.
		width := int64(2)
		tx.SIterate(key, "", func(m string) bool {
			v, _ := strconv.ParseInt(m, 10, 64)
			if v < math.MinInt32 || v > math.MaxInt32 {
				width = 8
			} else if (v < math.MinInt16 || v > math.MaxInt16) && width < 4 {
				width = 4
			}
			return true
		})
		return 16 + alloc(8+n*width)
	}
	tx.SIterate(key, "", func(m string) bool { return s.add(alloc(int64(len(m)) + 3)) })
	return 16 + 64 + n*8 + s.total(n) + n*24
}

func zsetSize(tx *store.Tx, key string, s *sampled) int64 {
	z, err := tx.OpenZSet(key)
	if err != nil || z == nil {
		return 0
	}
	defer z.Release()
	n := z.Len()
	small := n <= 128
	z.Ascend(func(e store.Entry) bool {
		small = small && len(e.Member) <= 64
		return s.add(int64(len(e.Member)))
	})
	if small {
		return 16 + alloc(s.total(n)+n*11+7)
	}
	return 16 + 64 + n*8 + s.total(n) + n*(24+16+48)
}

// memoryDoctorReport answers MEMORY DOCTOR with Redis's words for an
// instance without issues: Go's collector leaves none of the allocator
// issues Redis's doctor looks for.
const memoryDoctorReport = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base."
