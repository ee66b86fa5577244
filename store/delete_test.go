package store

import (
	"strconv"
	"testing"
)

// TestDeleteEveryLayout deletes keys of every type and layout, and checks
// that hasItems (which lets a deletion skip the scan of the key's data
// range) is true exactly when the key has element items, and that no item
// is left behind.
func TestDeleteEveryLayout(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	build := map[string]func(tx *Tx, key string){
		"string":      func(tx *Tx, key string) { tx.putMeta(key, Meta{}, false, Meta{Type: TypeString, Payload: "v"}) },
		"hash inline": func(tx *Tx, key string) { tx.HSet(key, "f", "v") },
		"hash items": func(tx *Tx, key string) {
			for i := 0; i <= hashInlineMaxEntries; i++ {
				tx.HSet(key, "f"+strconv.Itoa(i), "v")
			}
		},
		"set inline": func(tx *Tx, key string) { tx.SAdd(key, "a", "b") },
		"set items": func(tx *Tx, key string) {
			for i := 0; i <= setInlineMaxEntries; i++ {
				tx.SAdd(key, "m"+strconv.Itoa(i))
			}
		},
		"list inline": func(tx *Tx, key string) { tx.ListPush(key, []string{"a", "b"}, false, false) },
		"list items": func(tx *Tx, key string) {
			for i := 0; i <= listInlineMaxEntries; i++ {
				tx.ListPush(key, []string{"e" + strconv.Itoa(i)}, false, false)
			}
		},
		"zset inline": func(tx *Tx, key string) { zputN(tx, key, 3) },
		"zset items":  func(tx *Tx, key string) { zputN(tx, key, zInlineMaxBytes/8+1) },
	}
	items := func(tx *Tx, key string) int {
		n := 0
		tx.ascendPrefix(dataPrefix(tx.sel, key), func(string, string) bool { n++; return true })
		return n
	}
	for name, fn := range build {
		db.Update(func(tx *Tx) error {
			fn(tx, name)
			m, ok := tx.lookup(name)
			if !ok {
				t.Fatalf("%s: not created", name)
			}
			if n := items(tx, name); m.hasItems() != (n > 0) {
				t.Errorf("%s: hasItems %v with %d items", name, m.hasItems(), n)
			}
			if !tx.Delete(name) {
				t.Errorf("%s: not deleted", name)
			}
			if tx.Exists(name) || items(tx, name) != 0 {
				t.Errorf("%s: exists %v, %d items left", name, tx.Exists(name), items(tx, name))
			}
			if tx.db.zindexOf(tx.sel, name) != nil {
				t.Errorf("%s: sorted-set index left", name)
			}
			return nil
		})
	}
}

// zputN adds n members to key, one ZADD each.
func zputN(tx *Tx, key string, n int) {
	for i := 0; i < n; i++ {
		zput(tx, key, "member-"+strconv.Itoa(i), float64(i))
	}
}
