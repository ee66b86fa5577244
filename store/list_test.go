package store

import (
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
)

// listModel is the obvious slice implementation the store must agree with.
type listModel []string

func (m listModel) rangeOf(start, stop int64) []string {
	s, e, ok := ClampRange(start, stop, int64(len(m)))
	if !ok {
		return []string{}
	}
	return append([]string{}, m[s:e+1]...)
}

func TestListAgainstModel(t *testing.T) {
	db := openTemp(t, "")
	defer db.Close()
	rng := rand.New(rand.NewSource(7))
	var m listModel
	val := func() string { return strconv.Itoa(rng.Intn(6)) }
	for step := 0; step < 3000; step++ {
		op := rng.Intn(10)
		db.Update(func(tx *Tx) error {
			switch op {
			case 0, 1:
				left := op == 0
				vs := []string{val(), val()}
				n, err := tx.ListPush("k", vs, left, false)
				for _, v := range vs {
					if left {
						m = append(listModel{v}, m...)
					} else {
						m = append(m, v)
					}
				}
				if err != nil || n != int64(len(m)) {
					t.Fatalf("step %d push: %d %v, model %d", step, n, err, len(m))
				}
			case 2:
				left := rng.Intn(2) == 0
				c := int64(rng.Intn(3))
				got, _, err := tx.ListPop("k", left, c)
				if c > int64(len(m)) {
					c = int64(len(m))
				}
				var want []string
				for i := int64(0); i < c; i++ {
					if left {
						want, m = append(want, m[0]), m[1:]
					} else {
						want, m = append(want, m[len(m)-1]), m[:len(m)-1]
					}
				}
				if err != nil || len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("step %d pop: %q want %q", step, got, want)
				}
			case 3:
				before := rng.Intn(2) == 0
				pivot, v := val(), "i"+val()
				n, _ := tx.ListInsert("k", before, pivot, v)
				want := int64(-1)
				if len(m) == 0 {
					want = 0
				}
				for i, e := range m {
					if e == pivot {
						at := i
						if !before {
							at++
						}
						m = append(m[:at], append(listModel{v}, m[at:]...)...)
						want = int64(len(m))
						break
					}
				}
				if n != want {
					t.Fatalf("step %d insert: %d want %d", step, n, want)
				}
			case 4:
				count := int64(rng.Intn(5) - 2)
				v := val()
				n, _ := tx.ListRem("k", count, v)
				want := remModel(&m, count, v)
				if n != want {
					t.Fatalf("step %d rem: %d want %d", step, n, want)
				}
			case 5:
				if rng.Intn(4) != 0 {
					return nil // trims empty the list too often
				}
				a, b := int64(rng.Intn(8)-2), int64(rng.Intn(12)-4)
				tx.ListTrim("k", a, b)
				m = listModel(m.rangeOf(a, b))
			case 6:
				i := int64(rng.Intn(10) - 5)
				err := tx.ListSet("k", i, "s")
				j, ok := normIndex(i, int64(len(m)))
				switch {
				case len(m) == 0:
					if err != ErrNoSuchKey {
						t.Fatalf("step %d lset on empty: %v", step, err)
					}
				case !ok:
					if err != ErrIndexRange {
						t.Fatalf("step %d lset out of range: %v", step, err)
					}
				default:
					m[j] = "s"
				}
			case 7:
				from, to := rng.Intn(2) == 0, rng.Intn(2) == 0
				v, ok, _ := tx.ListMove("k", "k", from, to)
				if ok != (len(m) > 0) {
					t.Fatalf("step %d move: ok %v", step, ok)
				}
				if ok {
					var e string
					if from {
						e, m = m[0], m[1:]
					} else {
						e, m = m[len(m)-1], m[:len(m)-1]
					}
					if to {
						m = append(listModel{e}, m...)
					} else {
						m = append(m, e)
					}
					if e != v {
						t.Fatalf("step %d move got %q want %q", step, v, e)
					}
				}
			case 8:
				rank := int64(rng.Intn(5) - 2)
				if rank == 0 {
					rank = 1
				}
				count, maxlen := int64(rng.Intn(3)), int64(rng.Intn(4))
				v := val()
				got, _ := tx.ListPos("k", v, rank, count, maxlen)
				want := posModel(m, v, rank, count, maxlen)
				if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("step %d lpos %q %d %d %d: %v want %v (list %q)", step, v, rank, count, maxlen, got, want, m)
				}
			}
			checkList(t, tx, step, m)
			return nil
		})
	}
}

func remModel(m *listModel, count int64, v string) int64 {
	var out listModel
	removed := int64(0)
	src := *m
	if count < 0 {
		for i := len(src) - 1; i >= 0; i-- {
			if src[i] == v && removed < -count {
				removed++
				continue
			}
			out = append(listModel{src[i]}, out...)
		}
	} else {
		for _, e := range src {
			if e == v && (count == 0 || removed < count) {
				removed++
				continue
			}
			out = append(out, e)
		}
	}
	*m = out
	return removed
}

func posModel(m listModel, v string, rank, count, maxlen int64) []int64 {
	var out []int64
	idx := make([]int, len(m))
	for i := range idx {
		idx[i] = i
		if rank < 0 {
			idx[i] = len(m) - 1 - i
		}
	}
	skip := rank - 1
	if rank < 0 {
		skip = -rank - 1
	}
	for n, i := range idx {
		if maxlen != 0 && int64(n) >= maxlen {
			break
		}
		if m[i] != v {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, int64(i))
		if count != 0 && int64(len(out)) == count {
			break
		}
	}
	return out
}

// checkList compares the whole list, its length, every index both ways and
// the key's existence with the model.
func checkList(t *testing.T, tx *Tx, step int, m listModel) {
	t.Helper()
	got, err := tx.ListRange("k", 0, -1)
	if err != nil || len(got) != len(m) || (len(m) > 0 && !reflect.DeepEqual(got, []string(m))) {
		t.Fatalf("step %d: list %q want %q", step, got, m)
	}
	if n, _ := tx.ListLen("k"); n != int64(len(m)) {
		t.Fatalf("step %d: len %d want %d", step, n, len(m))
	}
	if tx.Exists("k") != (len(m) > 0) {
		t.Fatalf("step %d: exists %v with %d elements", step, tx.Exists("k"), len(m))
	}
	for i := range m {
		v, ok, _ := tx.ListIndex("k", int64(i))
		w, ok2, _ := tx.ListIndex("k", int64(i-len(m)))
		if !ok || !ok2 || v != m[i] || w != m[i] {
			t.Fatalf("step %d: index %d = %q/%q want %q", step, i, v, w, m[i])
		}
	}
	if len(m) == 0 {
		n := 0
		tx.ascendPrefix(dataPrefix(tx.sel, "k"), func(string, string) bool { n++; return true })
		if n != 0 {
			t.Fatalf("step %d: %d element items left behind an empty list", step, n)
		}
	}
}

func TestListMoveTypesAndTTL(t *testing.T) {
	db := openTemp(t, "")
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.ListPush("src", []string{"a", "b"}, false, false)
		tx.SetString("str", "x", 0, false)
		if _, _, err := tx.ListMove("src", "str", true, true); err != ErrWrongType {
			t.Errorf("move onto a string: %v", err)
		}
		if got, _ := tx.ListRange("src", 0, -1); !reflect.DeepEqual(got, []string{"a", "b"}) {
			t.Errorf("failed move changed src: %q", got)
		}
		if _, ok, err := tx.ListMove("missing", "str", true, true); ok || err != nil {
			t.Errorf("move from missing: %v %v", ok, err)
		}
		if _, err := tx.ListPush("str", []string{"a"}, true, false); err != ErrWrongType {
			t.Errorf("push onto string: %v", err)
		}
		if n, _ := tx.ListPush("nope", []string{"a"}, true, true); n != 0 || tx.Exists("nope") {
			t.Error("pushx created a key")
		}
		// A single-element list rotated onto itself keeps its expiry.
		tx.ListPush("one", []string{"x"}, true, false)
		at := tx.Now() + 100000
		tx.SetExpireAt("one", at)
		if v, ok, _ := tx.ListMove("one", "one", true, false); !ok || v != "x" {
			t.Errorf("rotate: %q %v", v, ok)
		}
		if got, ok := tx.ExpireAt("one"); !ok || got != at {
			t.Errorf("rotate lost the expiry: %d %v", got, ok)
		}
		// Pushing onto an existing list keeps its expiry too.
		tx.ListPush("one", []string{"y"}, false, false)
		if got, _ := tx.ExpireAt("one"); got != at {
			t.Errorf("push lost the expiry: %d", got)
		}
		// Moving the last element deletes the source.
		tx.ListMove("one", "dst", true, true)
		tx.ListMove("one", "dst", true, true)
		if tx.Exists("one") {
			t.Error("empty source kept")
		}
		if got, _ := tx.ListRange("dst", 0, -1); !reflect.DeepEqual(got, []string{"y", "x"}) {
			t.Errorf("dst = %q", got)
		}
		if got, _ := tx.ListPos("dst", "x", math.MinInt64, 1, 0); !reflect.DeepEqual(got, []int64{1}) {
			t.Errorf("lpos with the smallest rank: %v", got)
		}
		return nil
	})
}

func TestListSurvivesReopenAndRename(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		tx.ListPush("l", []string{"b", "a"}, true, false)
		tx.ListPush("l", []string{"c"}, false, false)
		tx.Rename("l", "m")
		return nil
	})
	db.Close()
	db = openTemp(t, dir)
	defer db.Close()
	db.View(func(tx *Tx) error {
		if got, _ := tx.ListRange("m", 0, -1); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
			t.Errorf("after reopen: %q", got)
		}
		if tx.Exists("l") {
			t.Error("renamed key still there")
		}
		return nil
	})
}
