package store

import (
	"strings"
	"testing"
	"unsafe"
)

// newRoom makes a Room as the server's parser makes one: the value with
// RoomBefore bytes before it and RoomAfter after, the first two of which
// are the bulk's CRLF, left as the client sent them (here not CRLF).
func newRoom(v string) *Room {
	buf := make([]byte, RoomBefore+len(v)+RoomAfter)
	for i := range buf {
		buf[i] = 'z'
	}
	copy(buf[RoomBefore:], v)
	return &Room{Buf: buf, Off: RoomBefore, Len: len(v)}
}

// A value handed over in a Room is kept in that buffer, not copied, with
// or without a data file, whatever records its transaction writes before
// and after it (an expiry entry, short sets, a replaced long value), and
// comes back whole after a reopen and a rewrite.
func TestRoomValueIsKeptUncopied(t *testing.T) {
	long := func(c byte, n int) string { return strings.Repeat(string(c), n-2) + "\r\n" }
	for _, dir := range []string{"", t.TempDir()} {
		opts := Options{Dir: dir, Sync: SyncAlways}
		db, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"alone": long('a', BigValue), "ttl": long('b', BigValue+5), "mixed": long('c', 2<<20), "short": "s"}
		shared := map[string]bool{}
		set := func(tx *Tx, k string, at int64) {
			r := newRoom(want[k])
			tx.SetStringRoom(k, r, at, false)
			v, _, _ := tx.GetString(k)
			shared[k] = unsafe.StringData(v) == &r.Buf[r.Off]
		}
		mustUpdate(t, db, func(tx *Tx) error { set(tx, "alone", 0); return nil })
		mustUpdate(t, db, func(tx *Tx) error { set(tx, "ttl", tx.Now()+1e9); return nil })
		mustUpdate(t, db, func(tx *Tx) error {
			tx.SetString("short", "s", 0, false)
			set(tx, "mixed", 0)
			tx.SetString("after", "x", 0, false)
			return nil
		})
		want["after"] = "x"
		for k := range shared {
			if !shared[k] {
				t.Errorf("dir %q: %s's value was copied", dir, k)
			}
		}
		want["alone"] = long('x', BigValue+1) // a long value replacing another
		mustUpdate(t, db, func(tx *Tx) error { set(tx, "alone", 0); return nil })
		if !shared["alone"] {
			t.Errorf("dir %q: the replacing value was copied", dir)
		}
		check := func(when string) {
			t.Helper()
			for k, v := range want {
				if got, ok := getKey(t, db, k); !ok || got != v {
					t.Fatalf("dir %q, %s: %s is %d bytes (%v), want %d", dir, when, k, len(got), ok, len(v))
				}
			}
		}
		check("set")
		if dir == "" {
			db.Close()
			continue
		}
		db.Close()
		db = openSync(t, dir, SyncAlways)
		check("reopened")
		if err := db.Save(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		db = openSync(t, dir, SyncAlways)
		check("reopened after a rewrite")
		db.Close()
	}
}

// A room without the space the store needs, or a value under BigValue,
// is copied like any value.
func TestRoomTooSmallIsCopied(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	v := strings.Repeat("v", BigValue)
	r := &Room{Buf: []byte("--" + v + "\r\n"), Off: 2, Len: len(v)}
	mustUpdate(t, db, func(tx *Tx) error {
		tx.SetStringRoom("k", r, 0, false)
		return nil
	})
	got, ok := getKey(t, db, "k")
	if !ok || got != v || unsafe.StringData(got) == &r.Buf[r.Off] {
		t.Fatalf("got %d bytes (%v), shared: %v", len(got), ok, unsafe.StringData(got) == &r.Buf[r.Off])
	}
}

func mustUpdate(t *testing.T, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}
