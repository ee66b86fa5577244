package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// collLayout tells whether key's members are inside its payload and how many
// items it has under its data prefix (a sorted set's: how many members its
// index holds, and none may be left in buntdb).
func collLayout(t *testing.T, tx *Tx, key string) (inline bool, items int) {
	t.Helper()
	m, ok := tx.lookup(key)
	if !ok {
		t.Fatalf("%s is missing", key)
	}
	switch m.Type {
	case TypeList:
		inline = len(m.Payload) != listItemHeaderLen && m.Payload[0] == listInlineMark
	case TypeZSet:
		inline = len(m.Payload) != 8 && m.Payload[0] == zInlineMark
	}
	tx.ascendPrefix(dataPrefix(tx.sel, key), func(string, string) bool { items++; return true })
	if m.Type == TypeZSet {
		if items != 0 {
			t.Errorf("%s: %d sorted-set members left as buntdb items", key, items)
		}
		if ix := tx.db.zindexOf(tx.sel, key); ix != nil {
			items = len(ix.scores)
		}
	}
	return inline, items
}

func wantColl(t *testing.T, tx *Tx, key string, inline bool, items int) {
	t.Helper()
	gi, gn := collLayout(t, tx, key)
	if gi != inline || gn != items {
		t.Errorf("%s: inline %v with %d items, want inline %v with %d", key, gi, gn, inline, items)
	}
}

func listOf(tx *Tx, key string) string {
	v, _ := tx.ListRange(key, 0, -1)
	return strings.Join(v, ",")
}

func zsetOf(tx *Tx, key string) string {
	z, _ := tx.OpenZSet(key)
	return collect(z.Ascend)
}

func zput(tx *Tx, key, member string, score float64) {
	z, _ := tx.OpenZSet(key)
	z.Put(member, score)
	z.Flush()
}

func zrem(tx *Tx, key, member string) {
	z, _ := tx.OpenZSet(key)
	z.Remove(member)
	z.Flush()
}

func TestZSetInlineByteLimit(t *testing.T) {
	db := memDB(t)
	member := func(i int) string { return fmt.Sprintf("m%04d", i) }
	each := 8 + packedSize(member(0))
	fit := zInlineMaxBytes / each // members that fit inline
	db.Update(func(tx *Tx) error {
		for i := fit - 1; i >= 0; i-- {
			zput(tx, "z", member(i), float64(i%10))
		}
		wantColl(t, tx, "z", true, 0)
		// Score changes at the limit keep it inline and in order.
		zput(tx, "z", member(5), -1)
		wantColl(t, tx, "z", true, 0)
		z := zopen(t, tx, "z")
		if z.Len() != int64(fit) {
			t.Errorf("len %d, want %d", z.Len(), fit)
		}
		if e, _ := z.edge(false); e.Member != member(5) || e.Score != -1 {
			t.Errorf("first = %+v", e)
		}
		if r, _ := z.Rank(member(0), false); r != 1 {
			t.Errorf("rank of the lowest score-0 member = %d", r)
		}
		// One more member passes the limit: an item per member from now on.
		zput(tx, "z", "extra", 0.5)
		wantColl(t, tx, "z", false, fit+1)
		return nil
	})
	db.Update(func(tx *Tx) error {
		z := zopen(t, tx, "z")
		if z.Len() != int64(fit+1) {
			t.Errorf("len %d after conversion", z.Len())
		}
		if s, ok := z.Score(member(5)); !ok || s != -1 {
			t.Errorf("score %v %v after conversion", s, ok)
		}
		// Never back, however small it gets.
		for i := 0; i < fit; i++ {
			z.Remove(member(i))
		}
		z.Flush()
		wantColl(t, tx, "z", false, 1)
		if got := zsetOf(tx, "z"); got != "extra=0.5 " {
			t.Errorf("left %q", got)
		}
		return nil
	})
}

func TestZSetInlineLongMember(t *testing.T) {
	db := memDB(t)
	db.Update(func(tx *Tx) error {
		// Longer than Redis's 64-byte listpack value: still one item.
		zput(tx, "z", strings.Repeat("a", 200), 1)
		zput(tx, "z", "b", 2)
		wantColl(t, tx, "z", true, 0)
		zput(tx, "z", strings.Repeat("c", zInlineMaxBytes), 3)
		wantColl(t, tx, "z", false, 3)
		if got := zsetOf(tx, "z"); got != strings.Repeat("a", 200)+"=1 b=2 "+strings.Repeat("c", zInlineMaxBytes)+"=3 " {
			t.Errorf("got %.40q", got)
		}
		zrem(tx, "z", strings.Repeat("c", zInlineMaxBytes))
		wantColl(t, tx, "z", false, 2)
		return nil
	})
}

func TestListInlineLimits(t *testing.T) {
	db := memDB(t)
	db.Update(func(tx *Tx) error {
		var want []string
		for i := 0; i < listInlineMaxEntries; i++ {
			want = append(want, strconv.Itoa(i))
		}
		tx.ListPush("l", want, false, false)
		wantColl(t, tx, "l", true, 0)
		tx.ListPush("l", []string{"x"}, true, false)
		wantColl(t, tx, "l", false, listInlineMaxEntries+1)
		if got := listOf(tx, "l"); got != "x,"+strings.Join(want, ",") {
			t.Errorf("order lost in conversion: %q", got)
		}
		// Back inline only at listInlineBackEntries.
		tx.ListTrim("l", 0, listInlineBackEntries)
		wantColl(t, tx, "l", false, listInlineBackEntries+1)
		tx.ListPop("l", false, 1)
		wantColl(t, tx, "l", true, 0)
		if got := listOf(tx, "l"); got != "x,"+strings.Join(want[:listInlineBackEntries-1], ",") {
			t.Errorf("order lost moving back: %q", got)
		}

		// 8192 bytes of packed elements stay inline; one more byte does not.
		e := strings.Repeat("e", 126) // 127 bytes packed
		var big []string
		for i := 0; i < 64; i++ {
			big = append(big, e)
		}
		big = append(big, strings.Repeat("t", 63)) // 64 bytes packed: 8192
		tx.ListPush("b", big, false, false)
		wantColl(t, tx, "b", true, 0)
		tx.ListSet("b", 64, strings.Repeat("t", 64))
		wantColl(t, tx, "b", false, 65)
		// Few elements but too many bytes to move back.
		tx.ListSet("b", 0, strings.Repeat("w", 400))
		tx.ListTrim("b", 0, listInlineBackEntries-1)
		wantColl(t, tx, "b", false, listInlineBackEntries)
		tx.ListSet("b", 0, "w")
		wantColl(t, tx, "b", true, 0)
		if v, _, _ := tx.ListIndex("b", -1); v != e {
			t.Errorf("tail %q", v)
		}
		return nil
	})
}

// An inline payload of exactly the item header's length gets a pad byte.
func TestListInlinePad(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	v := strings.Repeat("p", 13) // mark + count + 14 bytes = 16
	db.Update(func(tx *Tx) error {
		tx.ListPush("l", []string{v}, false, false)
		m, _ := tx.lookup("l")
		if len(m.Payload) != listItemHeaderLen+1 {
			t.Errorf("payload is %d bytes", len(m.Payload))
		}
		return nil
	})
	db.Update(func(tx *Tx) error {
		if got := listOf(tx, "l"); got != v {
			t.Errorf("got %q", got)
		}
		tx.ListPush("l", []string{"a"}, true, false)
		tx.ListPop("l", true, 1)
		wantColl(t, tx, "l", true, 0)
		if n, _ := tx.ListLen("l"); n != 1 {
			t.Errorf("len %d", n)
		}
		return nil
	})
}

// Payloads written before inline storage existed: a 16-byte list header and
// an 8-byte zset cardinality, with the elements as items, and for the zset
// the score-ordered items kept before the order moved to memory, which
// opening the file deletes once.
func TestLegacyListZSetLayout(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		l := &list{tx: tx, prefix: dataPrefix(tx.sel, "l") + listElemTag, h: listHeader{head: 77, n: 3}}
		for i, v := range []string{"a", "b", "c"} {
			l.set(int64(i), v)
		}
		tx.putMeta("l", Meta{}, false, Meta{Type: TypeList, Payload: l.h.encode()})
		zp := dataPrefix(tx.sel, "z")
		var b [8]byte
		for i, m := range []string{"x", "y"} {
			binary.BigEndian.PutUint64(b[:], math.Float64bits(float64(i)))
			tx.rawSet(memberPrefixOf(tx.sel, "z")+m, string(b[:]))
			tx.rawSet(legacyScoreKey(zp, float64(i), m), "")
		}
		binary.BigEndian.PutUint64(b[:], 2)
		tx.putMeta("z", Meta{}, false, Meta{Type: TypeZSet, Payload: string(b[:])})
		tx.rawDelete(formatKey)
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	if db.zidx.m[dbKey{0, "z"}] == nil {
		t.Error("the set's order was not built at start-up")
	}
	db.View(func(tx *Tx) error {
		// The members moved into the index, their only copy in memory.
		tx.ascendPrefix(dataPrefix(0, "z"), func(k, _ string) bool {
			t.Errorf("item %q left in buntdb", k)
			return true
		})
		return nil
	})
	db.Update(func(tx *Tx) error {
		wantColl(t, tx, "z", false, 2)
		if v, err := tx.btx.Get(formatKey); err != nil || v != formatZSetInMemoryOrder {
			t.Errorf("format marker %q %v", v, err)
		}
		if got := listOf(tx, "l"); got != "a,b,c" {
			t.Errorf("legacy list %q", got)
		}
		if v, _, _ := tx.ListIndex("l", 1); v != "b" {
			t.Errorf("index 1 = %q", v)
		}
		if got := zsetOf(tx, "z"); got != "x=0 y=1 " {
			t.Errorf("legacy zset %q", got)
		}
		// A write moves the short list inline; the zset stays as items.
		tx.ListPush("l", []string{"d"}, false, false)
		wantColl(t, tx, "l", true, 0)
		zput(tx, "z", "w", -1)
		wantColl(t, tx, "z", false, 3)
		if got := listOf(tx, "l") + " " + zsetOf(tx, "z"); got != "a,b,c,d w=-1 x=0 y=1 " {
			t.Errorf("after writes %q", got)
		}
		return nil
	})
}

func TestListZSetLayoutsSurviveRenameExpiryFlushReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	const zBig = 129 // members m0..m128 take 1.5 KB, past the inline limit
	var bigList []string
	for i := 0; i < listInlineMaxEntries+1; i++ {
		bigList = append(bigList, "e"+strconv.Itoa(i))
	}
	db.Update(func(tx *Tx) error {
		tx.ListPush("ls", []string{"a", "b"}, false, false)
		tx.ListPush("lb", bigList, false, false)
		zput(tx, "zs", "a", 1)
		for i := 0; i < zBig; i++ {
			zput(tx, "zb", "m"+strconv.Itoa(i), float64(i))
		}
		for _, k := range []string{"ls", "lb", "zs", "zb"} {
			if !tx.Rename(k, k+"2") || tx.Exists(k) {
				t.Errorf("rename %s failed", k)
			}
		}
		tx.SetExpireAt("ls2", tx.Now()+3600_000)
		tx.SetExpireAt("zs2", tx.Now()+3600_000)
		return nil
	})
	check := func(tx *Tx) {
		t.Helper()
		if got := listOf(tx, "ls2"); got != "a,b" {
			t.Errorf("ls2 = %q", got)
		}
		if got := listOf(tx, "lb2"); got != strings.Join(bigList, ",") {
			t.Errorf("lb2 = %q", got)
		}
		if got := zsetOf(tx, "zs2"); got != "a=1 " {
			t.Errorf("zs2 = %q", got)
		}
		z, _ := tx.OpenZSet("zb2")
		if s, ok := z.Score("m100"); z.Len() != zBig || !ok || s != 100 {
			t.Errorf("zb2: len %d, m100 %v %v", z.Len(), s, ok)
		}
		for _, k := range []string{"ls2", "zs2"} {
			if at, _ := tx.ExpireAt(k); at == 0 {
				t.Errorf("%s lost its expiry", k)
			}
		}
		wantColl(t, tx, "ls2", true, 0)
		wantColl(t, tx, "lb2", false, listInlineMaxEntries+1)
		wantColl(t, tx, "zs2", true, 0)
		wantColl(t, tx, "zb2", false, zBig)
	}
	db.View(func(tx *Tx) error { check(tx); return nil })
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error { check(tx); return nil })

	// Writes keep the expiry; SWAPDB carries both layouts.
	db.Update(func(tx *Tx) error {
		tx.ListPush("ls2", []string{"c"}, false, false)
		zput(tx, "zs2", "b", 2)
		for _, k := range []string{"ls2", "zs2"} {
			if at, _ := tx.ExpireAt(k); at == 0 {
				t.Errorf("%s lost its expiry on a write", k)
			}
		}
		tx.SwapDB(0, 1)
		tx.Select(1)
		if got := listOf(tx, "ls2") + " " + zsetOf(tx, "zs2"); got != "a,b,c a=1 b=2 " {
			t.Errorf("after swapdb %q", got)
		}
		if n, _ := tx.ListLen("lb2"); n != listInlineMaxEntries+1 {
			t.Errorf("lb2 len %d after swapdb", n)
		}
		return nil
	})
	// Expiry and DEL take every layout's items with them; FLUSHDB too.
	db.Update(func(tx *Tx) error {
		tx.Select(1)
		tx.SetExpireAt("lb2", tx.Now()-1)
		tx.SetExpireAt("zs2", tx.Now()-1)
		tx.Delete("zb2")
		tx.Delete("ls2")
		for _, k := range []string{"lb2", "zs2", "zb2", "ls2"} {
			n := 0
			tx.ascendPrefix(dataPrefix(tx.sel, k), func(string, string) bool { n++; return true })
			if tx.Exists(k) || n != 0 {
				t.Errorf("%s: exists %v, %d items left", k, tx.Exists(k), n)
			}
		}
		tx.ListPush("again", []string{"x"}, false, false)
		tx.FlushDB()
		if tx.DBSize() != 0 {
			t.Errorf("DBSize after flush = %d", tx.DBSize())
		}
		return nil
	})
}

func TestDamagedInlineListZSet(t *testing.T) {
	db := memDB(t)
	db.Update(func(tx *Tx) error {
		tx.ListPush("l", []string{"a", "bb", "ccc"}, false, false)
		m, _ := tx.lookup("l")
		for cut := len(m.Payload) - 1; cut >= 1; cut-- {
			bad := m
			bad.Payload = m.Payload[:cut] + "\x90"
			if len(bad.Payload) == listItemHeaderLen {
				continue // would read as a header
			}
			tx.rawSet(metaKey(tx.sel, "l"), bad.encode())
			tx.ListRange("l", 0, -1)
			tx.ListIndex("l", 2)
			tx.ListPop("l", false, 5)
			tx.rawSet(metaKey(tx.sel, "l"), bad.encode())
			tx.ListPush("l", []string{"d"}, true, false)
		}
		zput(tx, "z", "a", 1)
		zput(tx, "z", "b", 2)
		m, _ = tx.lookup("z")
		for cut := len(m.Payload) - 1; cut >= 1; cut-- {
			bad := m
			bad.Payload = m.Payload[:cut] + "\x90"
			if len(bad.Payload) == 8 {
				continue
			}
			tx.rawSet(metaKey(tx.sel, "z"), bad.encode())
			z := zopen(t, tx, "z")
			z.RangeByRank(0, z.Len()-1, true, func(Entry) bool { return true })
			z.Rank("b", true)
			z.Put("c", 3)
			z.Flush()
		}
		return nil
	})
}

// A random walk of list operations against a slice, each in its own
// transaction so every step decodes what the last one wrote. Lengths and
// element sizes drift across both limits, in both directions.
func TestListModelRandomWalk(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		db := memDB(t)
		var model []string
		elem := func() string {
			if r.IntN(8) == 0 {
				return strings.Repeat(strconv.Itoa(r.IntN(10)), 100+r.IntN(400))
			}
			return strconv.Itoa(r.IntN(30))
		}
		grow := true
		maxLen, switches, wasInline := 0, 0, true
		for step := 0; step < 1500; step++ {
			if n := len(model); grow && n > 170 || !grow && n < 20 {
				grow = !grow
			}
			db.Update(func(tx *Tx) error {
				// Pushes outweigh pops while growing and the reverse after.
				pushes, pops := 12, 3
				if !grow {
					pushes, pops = 3, 12
				}
				op := 0
				switch x := r.IntN(20); {
				case x < pushes:
				case x < pushes+pops:
					op = 4
				default:
					op = 6 + x%4
				}
				switch {
				case op < 4:
					left := r.IntN(2) == 0
					vals := make([]string, 1+r.IntN(4))
					for i := range vals {
						vals[i] = elem()
						if left {
							model = slices.Insert(model, 0, vals[i])
						} else {
							model = append(model, vals[i])
						}
					}
					if n, _ := tx.ListPush("l", vals, left, false); n != int64(len(model)) {
						t.Fatalf("seed %d step %d: push length %d want %d", seed, step, n, len(model))
					}
				case op < 6:
					left := r.IntN(2) == 0
					got, _, _ := tx.ListPop("l", left, int64(1+r.IntN(6)))
					for _, v := range got {
						var w string
						if left {
							w, model = model[0], model[1:]
						} else {
							w, model = model[len(model)-1], model[:len(model)-1]
						}
						if v != w {
							t.Fatalf("seed %d step %d: popped %q want %q", seed, step, v, w)
						}
					}
				case op == 6 && len(model) > 0:
					i := r.IntN(len(model))
					v := elem()
					tx.ListSet("l", int64(i), v)
					model[i] = v
				case op == 7 && len(model) > 0:
					pivot, v, before := model[r.IntN(len(model))], elem(), r.IntN(2) == 0
					at := slices.Index(model, pivot)
					if !before {
						at++
					}
					model = slices.Insert(model, at, v)
					tx.ListInsert("l", before, pivot, v)
				case op == 8:
					v, count := strconv.Itoa(r.IntN(30)), int64(r.IntN(5)-2)
					n, _ := tx.ListRem("l", count, v)
					lm := listModel(model)
					if want := remModel(&lm, count, v); n != want {
						t.Fatalf("seed %d step %d: removed %d want %d", seed, step, n, want)
					}
					model = lm
				case op == 9:
					start, stop := int64(r.IntN(3)), int64(-1-r.IntN(3))
					tx.ListTrim("l", start, stop)
					if s, e, ok := ClampRange(start, stop, int64(len(model))); ok {
						model = slices.Clone(model[s : e+1])
					} else {
						model = nil
					}
				}
				return nil
			})
			db.View(func(tx *Tx) error {
				got, _ := tx.ListRange("l", 0, -1)
				if !slices.Equal(got, model) && !(len(got) == 0 && len(model) == 0) {
					t.Fatalf("seed %d step %d: list %q want %q", seed, step, got, model)
				}
				if len(model) == 0 {
					if tx.Exists("l") {
						t.Fatalf("seed %d step %d: empty list kept", seed, step)
					}
					return nil
				}
				i := r.IntN(len(model))
				if v, _, _ := tx.ListIndex("l", int64(i)); v != model[i] {
					t.Fatalf("seed %d step %d: index %d = %q", seed, step, i, v)
				}
				maxLen = max(maxLen, len(model))
				inline, items := collLayout(t, tx, "l")
				if inline != wasInline {
					switches++
					wasInline = inline
				}
				if inline && (items != 0 || len(model) > listInlineMaxEntries) {
					t.Fatalf("seed %d step %d: inline list of %d with %d items", seed, step, len(model), items)
				}
				if !inline && items != len(model) {
					t.Fatalf("seed %d step %d: %d items for %d elements", seed, step, items, len(model))
				}
				return nil
			})
		}
		t.Logf("seed %d: longest %d, %d layout changes", seed, maxLen, switches)
		if maxLen <= listInlineMaxEntries || switches < 2 {
			t.Errorf("seed %d: longest %d, %d layout changes: the walk missed a limit", seed, maxLen, switches)
		}
	}
}

// A random walk of sorted-set operations against a map, checking every
// query the handle offers against the sorted model.
func TestZSetModelRandomWalk(t *testing.T) {
	t.Parallel()
	// Pools of 15 and 40 short members always fit inline; about two thirds
	// of 100 or 300 are present at a time, past the limit.
	for _, pool := range []int{15, 40, 100, 300} {
		mayFit := pool*(8+packedSize("m"+strconv.Itoa(pool))) <= zInlineMaxBytes
		r := rand.New(rand.NewPCG(uint64(pool), 9))
		db := memDB(t)
		model := map[string]float64{}
		spilled := false
		member := func() string {
			if !mayFit && r.IntN(200) == 0 {
				return strings.Repeat("L", 60+r.IntN(10))
			}
			return "m" + strconv.Itoa(r.IntN(pool))
		}
		sorted := func() []Entry {
			var es []Entry
			for m, s := range model {
				es = append(es, Entry{m, s})
			}
			sort.Slice(es, func(i, j int) bool { return entryCompare(es[i], es[j].Score, es[j].Member) < 0 })
			return es
		}
		for step := 0; step < 1500; step++ {
			db.Update(func(tx *Tx) error {
				z := zopen(t, tx, "z")
				for k := r.IntN(3); k >= 0; k-- {
					m := member()
					switch op := r.IntN(10); {
					case op < 6:
						s := float64(r.IntN(20) - 10)
						if r.IntN(4) == 0 {
							s += r.Float64()
						}
						_, had := model[m]
						if z.Put(m, s) == had {
							t.Fatalf("pool %d step %d: put %s new=%v", pool, step, m, !had)
						}
						model[m] = normZero(s)
					case op < 9:
						_, had := model[m]
						if z.Remove(m) != had {
							t.Fatalf("pool %d step %d: remove %s", pool, step, m)
						}
						delete(model, m)
					default:
						if z.Len() > 0 {
							var e Entry
							z.RangeByRank(0, 0, r.IntN(2) == 0, func(x Entry) bool { e = x; return false })
							z.RemoveEntry(e)
							delete(model, e.Member)
						}
					}
				}
				if z.inline && z.loaded && z.size != zInlineBytes(z.list) {
					t.Fatalf("pool %d step %d: size %d, members take %d", pool, step, z.size, zInlineBytes(z.list))
				}
				z.Flush()
				return nil
			})
			db.View(func(tx *Tx) error {
				z := zopen(t, tx, "z")
				want := sorted()
				if z.Len() != int64(len(want)) {
					t.Fatalf("pool %d step %d: len %d want %d", pool, step, z.Len(), len(want))
				}
				var got []Entry
				z.Ascend(func(e Entry) bool { got = append(got, e); return true })
				if !slices.Equal(got, want) {
					t.Fatalf("pool %d step %d: ascend %v want %v", pool, step, got, want)
				}
				got = got[:0]
				z.Descend(func(e Entry) bool { got = append(got, e); return true })
				slices.Reverse(got)
				if !slices.Equal(got, want) {
					t.Fatalf("pool %d step %d: descend differs", pool, step)
				}
				if len(want) == 0 {
					return nil
				}
				inline, items := collLayout(t, tx, "z")
				if inline && (items != 0 || zInlineBytes(want) > zInlineMaxBytes) || !inline && items != len(want) {
					t.Fatalf("pool %d step %d: inline %v with %d items for %d members", pool, step, inline, items, len(want))
				}
				spilled = spilled || !inline
				e := want[r.IntN(len(want))]
				if s, ok := z.Score(e.Member); !ok || s != e.Score {
					t.Fatalf("pool %d step %d: score %s", pool, step, e.Member)
				}
				rank := int64(slices.Index(want, e))
				if rk, _ := z.Rank(e.Member, false); rk != rank {
					t.Fatalf("pool %d step %d: rank %d want %d", pool, step, rk, rank)
				}
				if rk, _ := z.Rank(e.Member, true); rk != int64(len(want))-1-rank {
					t.Fatalf("pool %d step %d: reverse rank %d", pool, step, rk)
				}
				min := ScoreBound{float64(r.IntN(24) - 12), r.IntN(2) == 0}
				max := ScoreBound{min.Value + float64(r.IntN(8)), r.IntN(2) == 0}
				rev := r.IntN(2) == 0
				inRange := modelScoreRange(want, min, max, rev)
				got = got[:0]
				z.RangeByScore(min, max, rev, func(e Entry) bool { got = append(got, e); return true })
				if !slices.Equal(got, inRange) && len(got)+len(inRange) > 0 {
					t.Fatalf("pool %d step %d: range %v %v rev %v = %v want %v", pool, step, min, max, rev, got, inRange)
				}
				if n := z.CountByScore(min, max); n != int64(len(inRange)) {
					t.Fatalf("pool %d step %d: count %d", pool, step, n)
				}
				start := int64(r.IntN(len(want)))
				stop := start + int64(r.IntN(len(want)-int(start)))
				got = got[:0]
				z.RangeByRank(start, stop, rev, func(e Entry) bool { got = append(got, e); return true })
				wr := slices.Clone(want)
				if rev {
					slices.Reverse(wr)
				}
				if !slices.Equal(got, wr[start:stop+1]) {
					t.Fatalf("pool %d step %d: rank range %d..%d rev %v = %v", pool, step, start, stop, rev, got)
				}
				byMember := slices.Clone(want)
				sort.Slice(byMember, func(i, j int) bool { return byMember[i].Member < byMember[j].Member })
				from := member()
				i := sort.Search(len(byMember), func(i int) bool { return byMember[i].Member >= from })
				got = got[:0]
				z.Members(from, func(e Entry) bool { got = append(got, e); return true })
				if !slices.Equal(got, byMember[i:]) && len(got)+len(byMember[i:]) > 0 {
					t.Fatalf("pool %d step %d: members from %q", pool, step, from)
				}
				return nil
			})
		}
		if spilled == mayFit {
			t.Errorf("pool %d: moved to items %v", pool, spilled)
		}
	}
}

// legacyScoreKey is the score-ordered item key of a member of a sorted set
// kept as items, as versions before the in-memory order wrote it.
func legacyScoreKey(prefix string, score float64, member string) string {
	b := []byte(prefix + string(zTagScore))
	b = binary.BigEndian.AppendUint64(b, orderedScore(score))
	return string(b) + member
}
