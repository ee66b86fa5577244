package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	t.Parallel()
	dir := t.TempDir()
	db := openTemp(t, dir)
	defer func() { db.Close() }()
	r := rand.New(rand.NewPCG(3, 5))
	keys := randomKeys
	for round := 0; round < 6; round++ {
		for step := 0; step < 60; step++ {
			db.Update(func(tx *Tx) error {
				randomWrites(tx, r, keys, step)
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

// randomKeys are the keys randomWrites uses; each keeps one type, so that
// every type reaches both layouts.
var randomKeys = []string{"s", "h", "hbig", "l", "lbig", "set", "setbig", "z", "zbig"}

// randomWrites applies a few random writes of every type to keys, with
// collections small (inline) and large (items), removals included.
func randomWrites(tx *Tx, r *rand.Rand, keys []string, step int) {
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
}

// TestRewriteDuringRandomWrites rewrites the data file while writers run:
// the file read back must give the keyspace the writers left.
func TestRewriteDuringRandomWrites(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(Options{Dir: dir, Sync: SyncEverySec})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			keys := make([]string, len(randomKeys))
			for i, k := range randomKeys {
				keys[i] = k + strconv.Itoa(w)
			}
			for step := 0; step < 300; step++ {
				db.Update(func(tx *Tx) error {
					randomWrites(tx, r, keys, step)
					return nil
				})
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	saves := 0
	for running := true; running; saves++ {
		select {
		case <-finished:
			running = false
		default:
		}
		if err := db.Save(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rewrites beside the writers", saves)
	var before, after string
	db.View(func(tx *Tx) error { before = dumpAll(tx); return nil })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTemp(t, dir)
	db.View(func(tx *Tx) error { after = dumpAll(tx); return nil })
	if before != after {
		t.Fatalf("keyspace differs after rewrites and reopen:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if before == "" {
		t.Fatal("the writers left nothing")
	}
}
