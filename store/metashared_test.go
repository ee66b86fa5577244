package store

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSharedMetasMatchItems runs random writes of every kind over a few
// keys in two databases and, after each transaction, checks that what
// lookups answer (through the shared cache) is what the metadata items
// say, and that sorted sets' in-memory orders match their items.
func TestSharedMetasMatchItems(t *testing.T) {
	t.Parallel()
	db := memDB(t)
	r := rand.New(rand.NewPCG(7, 11))
	keys := []string{"a", "b", "c", "z", "big"}
	key := func() string { return keys[r.IntN(len(keys))] }
	for step := 0; step < 3000; step++ {
		db.Update(func(tx *Tx) error {
			for n := r.IntN(4); n >= 0; n-- {
				tx.Select(r.IntN(2))
				k := key()
				switch op := r.IntN(14); op {
				case 0:
					tx.SetString(k, strconv.Itoa(step), 0, false)
				case 1:
					tx.Delete(k)
				case 2:
					tx.Rename(k, key())
				case 3:
					tx.Copy(k, r.IntN(2), key(), r.IntN(2) == 0)
				case 4:
					tx.SetExpireAt(k, tx.Now()+int64(r.IntN(3)-1)*1000)
				case 5, 6:
					if z, err := tx.OpenZSet(k); err == nil {
						for i := r.IntN(200); i >= 0; i-- {
							z.Put("m"+strconv.Itoa(r.IntN(300)), float64(r.IntN(50)))
						}
						z.Flush()
						z.Release()
					}
				case 7:
					if z, err := tx.OpenZSet(k); err == nil {
						for i := r.IntN(200); i >= 0; i-- {
							z.Remove("m" + strconv.Itoa(r.IntN(300)))
						}
						z.Flush()
						z.Release()
					}
				case 8:
					tx.HSet(k, "f"+strconv.Itoa(r.IntN(5)), "v")
				case 9:
					tx.ListPush(k, []string{"x"}, r.IntN(2) == 0, false)
				case 10:
					tx.SAdd(k, "s"+strconv.Itoa(r.IntN(5)))
				case 11:
					if r.IntN(20) == 0 {
						tx.FlushDB()
					}
				case 12:
					if r.IntN(10) == 0 {
						tx.SwapDB(0, 1)
					}
				case 13:
					tx.HIncrBy(k, "n", 1)
				}
			}
			return nil
		})
		db.View(func(tx *Tx) error {
			for d := 0; d < 2; d++ {
				tx.Select(d)
				for _, k := range keys {
					tx.dropMetaCache()
					got, gotOK := tx.lookup(k)
					want, wantOK := Meta{}, false
					if v, err := tx.btx.Get(metaKey(d, k)); err == nil {
						want, wantOK = decodeMeta(v)
						if want.ExpireAt != 0 && want.ExpireAt <= tx.now {
							want, wantOK = Meta{}, false
						}
					}
					if gotOK != wantOK || got != want {
						t.Fatalf("step %d db %d key %s: lookup %v %+v, item %v %+v", step, d, k, gotOK, got, wantOK, want)
					}
					if !gotOK || got.Type != TypeZSet {
						continue
					}
					z, _ := tx.OpenZSet(k)
					var order []Entry
					z.Ascend(func(e Entry) bool { order = append(order, e); return true })
					var items []Entry
					z.Members("", func(e Entry) bool { items = append(items, e); return true })
					if int64(len(order)) != z.Len() || len(items) != len(order) {
						t.Fatalf("step %d db %d key %s: len %d, order %d, items %d", step, d, k, z.Len(), len(order), len(items))
					}
					for i := 1; i < len(order); i++ {
						if !entryLess(order[i-1], order[i]) {
							t.Fatalf("step %d key %s: order broken at %d", step, k, i)
						}
					}
					byMember := map[string]float64{}
					for _, e := range items {
						byMember[e.Member] = e.Score
					}
					for _, e := range order {
						if s, ok := byMember[e.Member]; !ok || s != e.Score {
							t.Fatalf("step %d key %s: order has %v, items %v %v", step, k, e, s, ok)
						}
					}
				}
			}
			return nil
		})
	}
}

// TestZIndexFollowsRenamedItems: a key renamed away and then given another
// set of the same size by RENAME or COPY must not keep the first set's
// in-memory order.
func TestZIndexFollowsRenamedItems(t *testing.T) {
	db := memDB(t)
	fill := func(tx *Tx, key, prefix string) {
		z, _ := tx.OpenZSet(key)
		for i := 0; i < 200; i++ {
			z.Put(prefix+strconv.Itoa(i), float64(i))
		}
		z.Flush()
		z.Release()
	}
	first := func(tx *Tx, key string) string {
		z, _ := tx.OpenZSet(key)
		defer z.Release()
		var m string
		z.Ascend(func(e Entry) bool { m = e.Member; return false })
		return m
	}
	db.Update(func(tx *Tx) error {
		fill(tx, "big", "a")
		fill(tx, "other", "b")
		fill(tx, "third", "c")
		if m := first(tx, "big"); m != "a0" {
			t.Fatalf("first %q", m)
		}
		tx.Rename("big", "moved")
		tx.Rename("other", "big")
		if m := first(tx, "big"); m != "b0" {
			t.Errorf("after rename onto it: first %q", m)
		}
		tx.Rename("big", "gone")
		tx.Copy("third", 0, "big", false)
		if m := first(tx, "big"); m != "c0" {
			t.Errorf("after copy onto it: first %q", m)
		}
		return nil
	})
}

// TestCachesUnderConcurrentReaders: readers building and reading sorted
// sets' orders and the shared metadata while a writer changes them (run
// with -race).
func TestCachesUnderConcurrentReaders(t *testing.T) {
	db := memDB(t)
	done := make(chan struct{})
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				db.View(func(tx *Tx) error {
					k := "z" + strconv.Itoa(g%2)
					z, err := tx.OpenZSet(k)
					if err != nil {
						return nil
					}
					n := int64(0)
					z.Ascend(func(Entry) bool { n++; return true })
					if n != z.Len() {
						errs <- "order and size differ for " + k
					}
					z.Release()
					return nil
				})
			}
		}(g)
	}
	for step := 0; step < 300; step++ {
		db.Update(func(tx *Tx) error {
			for _, k := range []string{"z0", "z1"} {
				z, _ := tx.OpenZSet(k)
				for i := 0; i < 50; i++ {
					z.Put("m"+strconv.Itoa((step*50+i)%400), float64(step))
				}
				z.Flush()
				z.Release()
			}
			if step%50 == 0 {
				tx.Delete("z0")
			}
			return nil
		})
	}
	close(done)
	for g := 0; g < 4; g++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
