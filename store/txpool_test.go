package store

import (
	"strconv"
	"testing"
)

// Transactions are recycled: each must start as a new one would, whatever
// the previous user of the same object selected, cached or touched.
func TestRecycledTxStartsClean(t *testing.T) {
	db, err := Open(Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 200; i++ {
		check := func(tx *Tx) {
			if tx.sel != 0 || len(tx.metas) != 0 || len(tx.touched) != 0 || len(tx.keyBuf) != 0 {
				t.Fatalf("round %d: transaction starts with sel %d, %d cached, %d touched, %d key bytes",
					i, tx.sel, len(tx.metas), len(tx.touched), len(tx.keyBuf))
			}
		}
		db.Update(func(tx *Tx) error {
			check(tx)
			tx.Select(i % 4)
			k := "k" + strconv.Itoa(i%7)
			tx.SetString(k, strconv.Itoa(i), 0, false)
			if _, err := tx.HSet("h"+k, "f", strconv.Itoa(i)); err != nil {
				t.Fatal(err)
			}
			z, _ := tx.OpenZSet("z" + k)
			z.Put(strconv.Itoa(i), float64(i))
			z.Flush()
			z.Release()
			tx.ListPush("l"+k, []string{strconv.Itoa(i)}, true, false)
			return nil
		})
		db.View(func(tx *Tx) error {
			check(tx)
			tx.Select(i % 4)
			v, ok, _ := tx.GetString("k" + strconv.Itoa(i%7))
			if !ok || v != strconv.Itoa(i) {
				t.Fatalf("round %d: read %q %v", i, v, ok)
			}
			if n, _ := tx.HLen("hk" + strconv.Itoa(i%7)); n != 1 {
				t.Fatalf("round %d: hash has %d fields", i, n)
			}
			return nil
		})
	}
	// Writes landed in the database each round selected, nowhere else.
	db.View(func(tx *Tx) error {
		for sel := 0; sel < 4; sel++ {
			tx.Select(sel)
			for k := 0; k < 7; k++ {
				_, ok, _ := tx.GetString("k" + strconv.Itoa(k))
				want := false
				for i := 0; i < 200; i++ {
					if i%4 == sel && i%7 == k {
						want = true
					}
				}
				if ok != want {
					t.Errorf("db %d key k%d: exists %v, want %v", sel, k, ok, want)
				}
			}
		}
		return nil
	})
}
