package scripts

import "sync"

// lrand48 is the 48-bit generator Redis's math.random uses (redisLrand48).
// Redis 7.0 keeps one generator for the whole server, starting from the
// fixed lrand48 state and never reseeded between scripts (only
// math.randomseed reseeds it), so the engine shares one the same way.
type lrand48 struct {
	mu sync.Mutex
	x  uint64
}

func newLrand48() *lrand48 { return &lrand48{x: 0x1234ABCD330E} }

const (
	lrandA    = 0x5DEECE66D
	lrandC    = 0xB
	lrandMask = 1<<48 - 1
	lrandMax  = 1<<31 - 1 // REDIS_LRAND48_MAX (INT32_MAX)
)

func (r *lrand48) seed(s int32) {
	r.mu.Lock()
	r.x = uint64(uint32(s))<<16 | 0x330E
	r.mu.Unlock()
}

func (r *lrand48) next() int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.x = (lrandA*r.x + lrandC) & lrandMask
	return int32(r.x >> 17)
}

// float returns a number in [0, 1) as redis_math_random computes it.
func (r *lrand48) float() float64 {
	return float64(r.next()%lrandMax) / float64(lrandMax)
}
