package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layout describes how a key is stored: its header and how many element
// items it has under its data prefix.
type layout struct {
	big, inline bool
	items       int
}

func layoutOf(t *testing.T, tx *Tx, key string) layout {
	t.Helper()
	m, ok := tx.lookup(key)
	if !ok {
		t.Fatalf("%s is missing", key)
	}
	h, _ := decodeCollHeader(m.Payload)
	l := layout{big: h.big(), inline: h.inline()}
	tx.ascendPrefix(dataPrefix(tx.sel, key), func(string, string) bool { l.items++; return true })
	return l
}

func wantLayout(t *testing.T, tx *Tx, key string, big, inline bool, items int) {
	t.Helper()
	want := layout{big: big, inline: inline, items: items}
	if got := layoutOf(t, tx, key); got != want {
		t.Errorf("%s: layout %+v, want %+v", key, got, want)
	}
}

func fieldsOf(tx *Tx, key string) string {
	all, _ := tx.HGetAll(key)
	return strings.Join(all, ",")
}

func TestHashListpackEntryLimit(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		var want []string
		for i := hashMaxCompact - 1; i >= 0; i-- {
			f := "f" + strconv.Itoa(i)
			tx.HSet("h", f, "v")
			want = append(want, f, "v")
		}
		wantLayout(t, tx, "h", false, true, 0)
		if got := fieldsOf(tx, "h"); got != strings.Join(want, ",") {
			t.Error("a full listpack lost insertion order")
		}
		// Updating and deleting at the limit keeps it a listpack.
		tx.HSet("h", "f100", "new")
		tx.HDel("h", "f200")
		tx.HSet("h", "f200", "back")
		wantLayout(t, tx, "h", false, true, 0)
		all, _ := tx.HGetAll("h")
		i := 2 * (hashMaxCompact - 1 - 100 - 1) // f200, before f100, was deleted
		if all[i] != "f100" || all[i+1] != "new" || all[len(all)-2] != "f200" {
			t.Error("update moved a field or re-add did not go last")
		}
		// One more field: a hashtable, too big to stay inline.
		tx.HSet("h", "extra", "v")
		wantLayout(t, tx, "h", true, false, hashMaxCompact+1)
		if n, _ := tx.HLen("h"); n != hashMaxCompact+1 {
			t.Errorf("HLen = %d", n)
		}
		if v, _, _ := tx.HGet("h", "f100"); v != "new" {
			t.Errorf("f100 = %q after conversion", v)
		}
		// Never back, however small it gets.
		for i := 0; i < hashMaxCompact; i++ {
			tx.HDel("h", "f"+strconv.Itoa(i))
		}
		wantLayout(t, tx, "h", true, false, 1)
		return nil
	})
}

func TestHashListpackValueLimit(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	at, over := strings.Repeat("x", hashMaxCompactSz), strings.Repeat("x", hashMaxCompactSz+1)
	db.Update(func(tx *Tx) error {
		tx.HSet("v", "z", "1", "y", at, at, "2")
		wantLayout(t, tx, "v", false, true, 0)
		if got := fieldsOf(tx, "v"); got != "z,1,y,"+at+","+at+",2" {
			t.Errorf("64-byte entries: %q", got)
		}
		// A long value converts; a hashtable this small stays inline, in
		// field order.
		tx.HSet("v", "a", over)
		wantLayout(t, tx, "v", true, true, 0)
		if got := fieldsOf(tx, "v"); got != "a,"+over+","+at+",2,y,"+at+",z,1" {
			t.Errorf("hashtable order: %q", got)
		}
		var from []string
		tx.HIterate("v", "y", func(f, _ string) bool { from = append(from, f); return true })
		if strings.Join(from, ",") != "y,z" {
			t.Errorf("HIterate from y = %q", from)
		}
		// A long field converts too, including through HINCRBY.
		tx.HSet("f", "a", "1")
		tx.HIncrBy("f", over, 1)
		wantLayout(t, tx, "f", true, true, 0)
		// HSETNX of an existing field writes nothing, so converts nothing.
		tx.HSet("nx", "a", "1")
		if ok, _ := tx.HSetNX("nx", "a", over); ok {
			t.Error("HSetNX replaced a field")
		}
		wantLayout(t, tx, "nx", false, true, 0)
		// A failed update converts nothing either.
		tx.HUpdate("nx", "a", func(string, bool) (string, error) { return over, ErrOverflow })
		wantLayout(t, tx, "nx", false, true, 0)
		// Never back: shrinking the long value leaves a hashtable.
		tx.HSet("v", "a", "short")
		tx.HDel("v", "y", at)
		wantLayout(t, tx, "v", true, true, 0)
		return nil
	})
}

// A hashtable hash leaves the metadata item past hashInlineMaxEntries fields
// or hashInlineMaxBytes of encoded entries.
func TestHashInlineHashtableLimits(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	long := strings.Repeat("d", hashMaxCompactSz+1)
	db.Update(func(tx *Tx) error {
		tx.HSet("n", "data", long)
		for i := 1; i < hashInlineMaxEntries; i++ {
			tx.HSet("n", fmt.Sprintf("f%03d", i), "v")
		}
		wantLayout(t, tx, "n", true, true, 0)
		tx.HSet("n", "last", "v")
		wantLayout(t, tx, "n", true, false, hashInlineMaxEntries+1)
		if v, _, _ := tx.HGet("n", "data"); v != long {
			t.Error("data lost by the move to items")
		}

		// Bytes: entries of one-byte lengths, sized to end exactly at the budget.
		per := packedSize("k00") + packedSize(long)
		n := hashInlineMaxBytes / per
		for i := 0; i < n; i++ {
			tx.HSet("b", fmt.Sprintf("k%02d", i), long)
		}
		w, _ := tx.openHash("b")
		rest := hashInlineMaxBytes - w.size - packedSize("z") - 1 // one-byte length
		tx.HSet("b", "z", strings.Repeat("r", rest))
		wantLayout(t, tx, "b", true, true, 0)
		tx.HSet("b", "z", strings.Repeat("r", rest+1))
		wantLayout(t, tx, "b", true, false, n+1)
		return nil
	})
}

func TestCompactLayoutsSurviveRenameExpiryFlushReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	long := strings.Repeat("L", 100)
	db.Update(func(tx *Tx) error {
		tx.HSet("lp", "b", "1", "a", "2")             // listpack, inline
		tx.HSet("ht", "b", "1", "a", long)            // hashtable, inline
		for i := 0; i < hashInlineMaxEntries+1; i++ { // hashtable, items
			tx.HSet("hi", fmt.Sprintf("f%d", i), long)
		}
		tx.SAdd("is", "3", "1", "2") // intset, inline
		tx.SAdd("ss", "b", "a")      // hashtable, inline
		for i := 0; i < setInlineMaxEntries+1; i++ {
			tx.SAdd("si", "m"+strconv.Itoa(i)) // hashtable, items
		}
		for _, k := range []string{"lp", "ht", "hi", "is", "ss", "si"} {
			if !tx.Rename(k, k+"2") {
				t.Errorf("rename %s failed", k)
			}
			if tx.Exists(k) {
				t.Errorf("%s remains after rename", k)
			}
			n := 0
			tx.ascendPrefix(dataPrefix(tx.sel, k), func(string, string) bool { n++; return true })
			if n != 0 {
				t.Errorf("%s left %d items behind", k, n)
			}
		}
		tx.SetExpireAt("lp2", tx.Now()+3600_000)
		return nil
	})
	check := func(tx *Tx) {
		t.Helper()
		if got := fieldsOf(tx, "lp2"); got != "b,1,a,2" {
			t.Errorf("lp2 = %q", got)
		}
		if got := fieldsOf(tx, "ht2"); got != "a,"+long+",b,1" {
			t.Errorf("ht2 = %q", got)
		}
		if n, _ := tx.HLen("hi2"); n != hashInlineMaxEntries+1 {
			t.Errorf("hi2 has %d fields", n)
		}
		if v, _, _ := tx.HGet("hi2", "f7"); v != long {
			t.Errorf("hi2 f7 = %q", v)
		}
		if m, _, _ := tx.SMembers("is2"); strings.Join(m, ",") != "1,2,3" {
			t.Errorf("is2 = %q", m)
		}
		if m, _, _ := tx.SMembers("ss2"); strings.Join(m, ",") != "a,b" {
			t.Errorf("ss2 = %q", m)
		}
		if ok, _ := tx.SIsMember("si2", "m5"); !ok {
			t.Error("si2 lost m5")
		}
		if at, _ := tx.ExpireAt("lp2"); at == 0 {
			t.Error("lp2 lost its expiry")
		}
		wantLayout(t, tx, "lp2", false, true, 0)
		wantLayout(t, tx, "ht2", true, true, 0)
		wantLayout(t, tx, "hi2", true, false, hashInlineMaxEntries+1)
		wantLayout(t, tx, "is2", false, true, 0)
		wantLayout(t, tx, "ss2", true, true, 0)
		wantLayout(t, tx, "si2", true, false, setInlineMaxEntries+1)
	}
	db.View(func(tx *Tx) error { check(tx); return nil })
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error { check(tx); return nil })

	// Expiry and DEL take every layout's items with them; FLUSHDB too.
	db.Update(func(tx *Tx) error {
		tx.SetExpireAt("hi2", tx.Now()-1)
		tx.Delete("si2")
		tx.HSet("again", "x", "y")
		for _, k := range []string{"hi2", "si2"} {
			n := 0
			tx.ascendPrefix(dataPrefix(tx.sel, k), func(string, string) bool { n++; return true })
			if tx.Exists(k) || n != 0 {
				t.Errorf("%s: exists %v, %d items left", k, tx.Exists(k), n)
			}
		}
		tx.FlushDB()
		if tx.DBSize() != 0 {
			t.Errorf("DBSize after flush = %d", tx.DBSize())
		}
		return nil
	})
}

func TestSetCompactThresholds(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		for i := setMaxIntset; i > 0; i-- {
			tx.SAdd("i", strconv.Itoa(i))
		}
		wantLayout(t, tx, "i", false, true, 0)
		if ok, _ := tx.SIntset("i"); !ok {
			t.Error("512 integers should be an intset")
		}
		tx.SAdd("i", "0")
		wantLayout(t, tx, "i", true, false, setMaxIntset+1)

		// A non-integer member makes a hashtable that stays inline while small.
		tx.SAdd("s", "10", "-3", "7")
		tx.SAdd("s", "x")
		wantLayout(t, tx, "s", true, true, 0)
		if m, _, _ := tx.SMembers("s"); strings.Join(m, ",") != "-3,10,7,x" {
			t.Errorf("members = %q", m)
		}
		var from []string
		tx.SIterate("s", "5", func(m string) bool { from = append(from, m); return true })
		if strings.Join(from, ",") != "7,x" {
			t.Errorf("SIterate from 5 = %q", from)
		}
		for i := 4; i < setInlineMaxEntries; i++ {
			tx.SAdd("s", "m"+strconv.Itoa(i))
		}
		wantLayout(t, tx, "s", true, true, 0)
		tx.SAdd("s", "one-more")
		wantLayout(t, tx, "s", true, false, setInlineMaxEntries+1)
		if ok, _ := tx.SIsMember("s", "-3"); !ok {
			t.Error("-3 lost by the move to items")
		}

		// Bytes: long members leave the metadata item past the budget.
		long := strings.Repeat("b", 200)
		n := 0
		for ; n < setInlineMaxEntries; n++ {
			w, _ := tx.openSet("b")
			if w.size+packedSize(long) > setInlineMaxBytes {
				break
			}
			tx.SAdd("b", fmt.Sprintf("%03d", n)+long)
		}
		wantLayout(t, tx, "b", true, true, 0)
		tx.SAdd("b", "zz"+long)
		wantLayout(t, tx, "b", true, false, n+1)

		// SMOVE and SSTORE across layouts; the set emptied goes away.
		tx.SAdd("one", "x")
		if ok, _ := tx.SMove("one", "s", "x"); !ok || tx.Exists("one") {
			t.Error("SMOVE inline -> items")
		}
		if ok, _ := tx.SMove("s", "i2", "-3"); !ok {
			t.Error("SMOVE items -> new")
		}
		if ok, _ := tx.SIntset("i2"); !ok {
			t.Error("moved integer did not make an intset")
		}
		if ok, _ := tx.SMove("i2", "i2", "-3"); !ok {
			t.Error("SMOVE to itself of a member")
		}
		if c := tx.SStore("i2", []string{"5", "4"}); c != 2 {
			t.Errorf("SStore = %d", c)
		}
		wantLayout(t, tx, "i2", false, true, 0)
		return nil
	})
}

// Payloads written before inline storage (flags 0 or 1, elements as items)
// still read and write.
func TestLegacyItemLayout(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.putMeta("old", Meta{}, false, Meta{Type: TypeHash, Payload: "\x02\x00"})
		tx.rawSet(hashFieldKey(tx.sel, "old", "b"), "1")
		tx.rawSet(hashFieldKey(tx.sel, "old", "a"), "2")
		if got := fieldsOf(tx, "old"); got != "a,2,b,1" {
			t.Errorf("legacy hash = %q", got)
		}
		tx.HSet("old", "c", "3")
		if n, _ := tx.HLen("old"); n != 3 {
			t.Errorf("HLen = %d", n)
		}
		wantLayout(t, tx, "old", false, false, 3)
		tx.putMeta("olds", Meta{}, false, Meta{Type: TypeSet, Payload: "\x01\x01"})
		tx.rawSet(setMembersPrefix(tx.sel, "olds")+"x", "")
		if ok, _ := tx.SIsMember("olds", "x"); !ok {
			t.Error("legacy set member missing")
		}
		tx.SRem("olds", "x")
		if tx.Exists("olds") {
			t.Error("emptied legacy set remains")
		}
		return nil
	})
}

// A damaged inline payload reads as what parses, without a panic.
func TestDamagedInlinePayload(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.HSet("h", "a", "1", "b", "2")
		m, _ := tx.lookup("h")
		for cut := len(m.Payload) - 1; cut >= 0; cut-- {
			bad := m
			bad.Payload = m.Payload[:cut] + "\xff"
			tx.rawSet(metaKey(tx.sel, "h"), bad.encode())
			tx.HGetAll("h")
			tx.HGet("h", "b")
			tx.HSet("h", "c", "3")
		}
		tx.SAdd("s", "1", "2")
		m, _ = tx.lookup("s")
		for cut := len(m.Payload) - 1; cut >= 0; cut-- {
			bad := m
			bad.Payload = m.Payload[:cut] + "\x90"
			tx.rawSet(metaKey(tx.sel, "s"), bad.encode())
			tx.SMembers("s")
			tx.SIsMember("s", "2")
			tx.SAdd("s", "3")
		}
		return nil
	})
}

// A random walk of hash writes against a model: insertion order while a
// listpack, field order after, sizes that match the payload, and the layout
// the thresholds call for.
func TestHashModelRandomWalk(t *testing.T) {
	db := openTemp(t, ":memory:")
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 20; round++ {
		key := "h" + strconv.Itoa(round)
		var order []string
		vals := map[string]string{}
		big := false
		for step := 0; step < 300; step++ {
			f := "f" + strconv.Itoa(rng.IntN(150))
			db.Update(func(tx *Tx) error {
				switch op := rng.IntN(10); {
				case op < 6:
					v := strings.Repeat("v", rng.IntN(66-round/4))
					tx.HSet(key, f, v)
					if _, ok := vals[f]; !ok {
						order = append(order, f)
					}
					vals[f] = v
					big = big || len(v) > hashMaxCompactSz || len(order) > hashMaxCompact
				default:
					tx.HDel(key, f)
					if _, ok := vals[f]; ok {
						delete(vals, f)
						order = slices.DeleteFunc(order, func(s string) bool { return s == f })
					}
				}
				if len(order) == 0 {
					big = false // the key went away
					if tx.Exists(key) {
						t.Fatalf("%s: empty hash exists", key)
					}
					return nil
				}
				want := slices.Clone(order)
				if big {
					slices.Sort(want)
				}
				var got []string
				tx.HIterate(key, "", func(f, v string) bool {
					if vals[f] != v {
						t.Fatalf("%s: %s = %q, want %q", key, f, v, vals[f])
					}
					got = append(got, f)
					return true
				})
				if !slices.Equal(got, want) {
					t.Fatalf("%s step %d: order %q, want %q", key, step, got, want)
				}
				if c, _ := tx.HCompact(key); c == big {
					t.Fatalf("%s: compact %v, big %v", key, c, big)
				}
				w, _ := tx.openHash(key)
				m, _ := tx.lookup(key)
				_, i := decodeCollHeader(m.Payload)
				if w.h.inline() && w.size != len(m.Payload)-i {
					t.Fatalf("%s: size %d, payload has %d", key, w.size, len(m.Payload)-i)
				}
				if w.h.inline() && big && (len(order) > hashInlineMaxEntries || w.size > hashInlineMaxBytes) {
					t.Fatalf("%s: inline past the budget", key)
				}
				return nil
			})
		}
	}
}

// The same for sets: byte order always, the intset rule, sizes and layout.
func TestSetModelRandomWalk(t *testing.T) {
	db := openTemp(t, ":memory:")
	defer db.Close()
	rng := rand.New(rand.NewPCG(8, 13))
	for round := 0; round < 20; round++ {
		key := "s" + strconv.Itoa(round)
		model := map[string]bool{}
		big := false
		for step := 0; step < 400; step++ {
			m := strconv.Itoa(rng.IntN(200) - 50)
			if rng.IntN(100) < round {
				m = "m" + strings.Repeat("x", rng.IntN(40)) + m
			}
			db.Update(func(tx *Tx) error {
				if rng.IntN(10) < 7 {
					tx.SAdd(key, m)
					model[m] = true
					_, isInt := parseStrictInt(m)
					big = big || !isInt || len(model) > setMaxIntset
				} else {
					tx.SRem(key, m)
					delete(model, m)
				}
				if len(model) == 0 {
					big = false
					return nil
				}
				want := make([]string, 0, len(model))
				for k := range model {
					want = append(want, k)
				}
				slices.Sort(want)
				got, _, _ := tx.SMembers(key)
				if !slices.Equal(got, want) {
					t.Fatalf("%s step %d: members %q, want %q", key, step, got, want)
				}
				if is, _ := tx.SIntset(key); is == big {
					t.Fatalf("%s: intset %v, big %v", key, is, big)
				}
				w, _ := tx.openSet(key)
				meta, _ := tx.lookup(key)
				_, i := decodeCollHeader(meta.Payload)
				if w.h.inline() && w.size != len(meta.Payload)-i {
					t.Fatalf("%s: size %d, payload has %d", key, w.size, len(meta.Payload)-i)
				}
				if w.h.inline() && big && (len(model) > setInlineMaxEntries || w.size > setInlineMaxBytes) {
					t.Fatalf("%s: inline past the budget", key)
				}
				return nil
			})
		}
	}
}
