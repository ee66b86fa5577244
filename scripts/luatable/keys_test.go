package luatable_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/qlessd/qlessd/scripts/luatable"
)

var qlessWords = []string{"jid", "event", "queue", "worker", "when", "what", "q", "klass", "state", "data",
	"tags", "history", "failure", "expires", "priority", "retries", "remaining", "tracked", "dependents",
	"dependencies", "spawned_from_jid", "throttles", "count", "name", "group", "message", "paused", "stalled"}

var oddKeys = []string{"", " ", "é", "ключ", "😀k", "a\x00b", "\x00", "\xff\xfe", "/", `"`, `\`, "\n", "\t\u2028"}

// keySource draws keys of one random case. Some keys hash alike outright,
// so lookups must compare strings; the rest collide modulo the small node
// vectors anyway.
type keySource struct {
	rng   *rand.Rand
	long  []string
	twins []string // one group of keys with equal hashes
	picks []string // keys drawn so far, drawn again to make repeats
}

func (ks *keySource) twin() string { return ks.twins[ks.rng.Intn(len(ks.twins))] }

func newKeySource(rng *rand.Rand) *keySource {
	twins := hashTwins()
	ks := &keySource{rng: rng, twins: twins[rng.Intn(len(twins))]}
	for i := rng.Intn(3) + 1; i > 0; i-- {
		ks.long = append(ks.long, randomBytes(rng, 32+rng.Intn(90), "abcdefghijklmnopqrstuvwxyz:-"))
	}
	return ks
}

func randomBytes(rng *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}

func (ks *keySource) key() string {
	rng := ks.rng
	var k string
	switch c := rng.Intn(20); {
	case c < 2 && len(ks.picks) > 0:
		return ks.picks[rng.Intn(len(ks.picks))]
	case c < 7:
		k = qlessWords[rng.Intn(len(qlessWords))]
	case c < 11:
		k = randomBytes(rng, 1+rng.Intn(5), "abcxyz_019")
	case c < 13:
		k = strconv.Itoa(rng.Intn(120) - 5)
	case c < 15:
		k = ks.nearLong()
	case c < 17:
		k = ks.twin()
	case c < 18:
		k = oddKeys[rng.Intn(len(oddKeys))]
	default:
		k = randomBytes(rng, 1+rng.Intn(12), "abcdefghijklmnopqrstuvwxyz0123456789_ABC")
	}
	ks.picks = append(ks.picks, k)
	return k
}

// nearLong changes one byte of a template, so long keys share most of
// their bytes; stock Lua 5.1, which skips bytes of long strings when
// hashing, would hash many of them alike, but Redis hashes every byte.
func (ks *keySource) nearLong() string {
	b := []byte(ks.long[ks.rng.Intn(len(ks.long))])
	b[ks.rng.Intn(len(b))] = "ABCDEFGH"[ks.rng.Intn(8)]
	return string(b)
}

// hashTwins finds groups of distinct three-byte keys with equal hashes.
var hashTwins = sync.OnceValue(func() [][]string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
	byHash := map[uint32][]string{}
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				k := string([]rune{a, b, c})
				byHash[luatable.Hash(k)] = append(byHash[luatable.Hash(k)], k)
			}
		}
	}
	var groups [][]string
	for _, g := range byHash {
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(x, y []string) int { return strings.Compare(x[0], y[0]) })
	return groups
})

func (ks *keySource) keys(n int) []string {
	ks.picks = ks.picks[:0]
	out := make([]string, n)
	for i := range out {
		out[i] = ks.key()
	}
	return out
}

// luaQuote writes s as a Lua 5.1 string literal, escaping every byte
// that is not plain ASCII with three decimal digits.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonQuote writes s as a JSON string as lua-cjson reads it: bytes are
// taken as they are, so invalid UTF-8 is kept; valid non-ASCII runes are
// sometimes written as \u escapes (surrogate pairs above U+FFFF).
func jsonQuote(rng *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r >= 0x80 && rng.Intn(2) == 0:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&b, "\\u%04x\\u%04x", 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&b, "\\u%04x", r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}
