package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dumpAll is every key of database 0 with its type and contents, as text.
func dumpAll(tx *Tx) string {
	var b strings.Builder
	tx.ScanKeys("", func(key string, t Type) bool {
		fmt.Fprintf(&b, "%s %d:", key, t)
		switch t {
		case TypeString:
			v, _, _ := tx.GetString(key)
			b.WriteString(v)
		case TypeHash:
			all, _ := tx.HGetAll(key)
			b.WriteString(strings.Join(all, ","))
		case TypeList:
			all, _ := tx.ListRange(key, 0, -1)
			b.WriteString(strings.Join(all, ","))
		case TypeSet:
			all, _, _ := tx.SMembers(key)
			slices.Sort(all)
			b.WriteString(strings.Join(all, ","))
		case TypeZSet:
			z, _ := tx.OpenZSet(key)
			z.Ascend(func(e Entry) bool { fmt.Fprintf(&b, "%s=%v,", e.Member, e.Score); return true })
			z.Release()
		}
		b.WriteByte('\n')
		return true
	})
	return b.String()
}

// TestRandomWritesSurviveReopen applies random writes of every type, with
// collections small (inline) and large (items), removals included, and
// checks after each round that reading the data file back gives the same
// keyspace: what buntdb logged is what the transactions did.
func TestRandomWritesSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	defer func() { db.Close() }()
	r := rand.New(rand.NewPCG(3, 5))
	// Each key keeps one type, so that every type reaches both layouts.
	keys := []string{"s", "h", "hbig", "l", "lbig", "set", "setbig", "z", "zbig"}
	for round := 0; round < 6; round++ {
		for step := 0; step < 60; step++ {
			db.Update(func(tx *Tx) error {
				for n := r.IntN(5); n >= 0; n-- {
					k := keys[r.IntN(len(keys))]
					width := 20
					if strings.HasSuffix(k, "big") {
						width = 400
					}
					el := func() string { return strconv.Itoa(r.IntN(width)) }
					for i := r.IntN(30); i >= 0; i-- {
						remove := r.IntN(3) == 0
						switch k[0] {
						case 's':
							if k == "s" {
								tx.SetString(k, el(), 0, false)
							} else if remove {
								tx.SRem(k, el())
							} else {
								tx.SAdd(k, el())
							}
						case 'h':
							if remove {
								tx.HDel(k, "f"+el())
							} else {
								tx.HSet(k, "f"+el(), strconv.Itoa(step))
							}
						case 'l':
							if remove {
								tx.ListPop(k, r.IntN(2) == 0, 1)
							} else {
								tx.ListPush(k, []string{el()}, r.IntN(2) == 0, false)
							}
						case 'z':
							z, _ := tx.OpenZSet(k)
							if remove {
								z.Remove("m" + el())
							} else {
								z.Put("m"+el(), float64(r.IntN(40)))
							}
							z.Flush()
							z.Release()
						}
					}
				}
				if r.IntN(60) == 0 {
					tx.Delete(keys[r.IntN(len(keys))])
				}
				return nil
			})
		}
		var before, after string
		db.View(func(tx *Tx) error { before = dumpAll(tx); return nil })
		db.Close()
		db = openTemp(t, dir)
		db.View(func(tx *Tx) error { after = dumpAll(tx); return nil })
		if before != after {
			t.Fatalf("round %d: keyspace differs after reopen:\nbefore:\n%s\nafter:\n%s", round, before, after)
		}
	}
}
