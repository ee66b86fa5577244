package store

import (
	"strconv"
	"strings"
	"testing"
)

func TestSetBasics(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		if n, err := tx.SAdd("s", "b", "a", "\x00", "a", ""); n != 4 || err != nil {
			t.Fatalf("SAdd = %d %v", n, err)
		}
		if n, _ := tx.SAdd("s", "a"); n != 0 {
			t.Errorf("re-adding = %d", n)
		}
		if n, _ := tx.SCard("s"); n != 4 {
			t.Errorf("SCard = %d", n)
		}
		m, ok, _ := tx.SMembers("s")
		if !ok || strings.Join(m, ",") != ",\x00,a,b" {
			t.Errorf("SMembers = %q", m)
		}
		if ok, _ := tx.SIsMember("s", ""); !ok {
			t.Error("empty member missing")
		}
		if n, _ := tx.SRem("s", "a", "zz", "a"); n != 1 {
			t.Errorf("SRem = %d", n)
		}
		tx.SRem("s", "", "\x00", "b")
		if tx.Exists("s") {
			t.Error("empty set still exists")
		}
		tx.SetString("str", "v", 0, false)
		if _, err := tx.SAdd("str", "x"); err != ErrWrongType {
			t.Errorf("SAdd on string: %v", err)
		}
		if _, _, err := tx.SMembers("str"); err != ErrWrongType {
			t.Errorf("SMembers on string: %v", err)
		}
		return nil
	})
}

func TestSetMoveAndStore(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.SAdd("src", "x", "y")
		tx.SetString("str", "v", 0, false)
		if ok, err := tx.SMove("nokey", "str", "x"); ok || err != nil {
			t.Errorf("move from missing: %v %v", ok, err)
		}
		if _, err := tx.SMove("src", "str", "zz"); err != ErrWrongType {
			t.Errorf("move to string: %v", err)
		}
		if ok, _ := tx.SMove("src", "src", "x"); !ok {
			t.Error("move to itself of a member")
		}
		if ok, _ := tx.SMove("src", "dst", "x"); !ok {
			t.Error("move failed")
		}
		tx.SMove("src", "dst", "y")
		if tx.Exists("src") {
			t.Error("emptied source remains")
		}
		if m, _, _ := tx.SMembers("dst"); strings.Join(m, ",") != "x,y" {
			t.Errorf("dst = %q", m)
		}
		tx.SetExpireAt("str", tx.Now()+100000)
		if n := tx.SStore("str", []string{"1", "2"}); n != 2 {
			t.Errorf("SStore = %d", n)
		}
		if at, _ := tx.ExpireAt("str"); at != 0 || tx.TypeOf("str") != TypeSet {
			t.Errorf("stored key: expiry %d type %v", at, tx.TypeOf("str"))
		}
		if n := tx.SStore("str", nil); n != 0 || tx.Exists("str") {
			t.Error("storing nothing should delete")
		}
		return nil
	})
}

func TestSetEncoding(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		for i := 0; i < setMaxIntset; i++ {
			tx.SAdd("ints", strconv.Itoa(i))
		}
		if is, _ := tx.SIntset("ints"); !is {
			t.Error("512 integers should be an intset")
		}
		tx.SAdd("ints", "512")
		if is, _ := tx.SIntset("ints"); is {
			t.Error("513 integers should be a hashtable")
		}
		tx.SAdd("mixed", "1", "01")
		if is, _ := tx.SIntset("mixed"); is {
			t.Error("01 is not an integer member")
		}
		tx.SRem("mixed", "01")
		if is, _ := tx.SIntset("mixed"); is {
			t.Error("a hashtable stays one after shrinking")
		}
		return nil
	})
}
