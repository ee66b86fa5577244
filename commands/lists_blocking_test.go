package commands

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// run dispatches one command; a reply that was not written at all comes
// back with Kind 255.
func run(t *testing.T, tx *store.Tx, c *Ctx, args ...string) resp.Value {
	t.Helper()
	var rec resp.Recorder
	c.Tx, c.W = tx, &rec
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	tab := Default()
	tab.Dispatch(c, tab.Lookup(bs[0]), bs)
	if !rec.Written() {
		return resp.Value{Kind: 255}
	}
	return rec.Value()
}

// In MULTI (or, for BLMPOP, a script) a blocking pop with nothing to take
// answers at once as Redis 7.0 does: a null array, or a null bulk for the
// moves; after a timeout the moves answer a null array.
func TestBlockingListsWithoutWaiting(t *testing.T) {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Update(func(tx *store.Tx) error {
		for _, tc := range []struct {
			ctx  Ctx
			args []string
			want resp.Kind
		}{
			{Ctx{InMulti: true}, []string{"blpop", "none", "0"}, resp.NullArray},
			{Ctx{InMulti: true}, []string{"brpop", "none", "x", "1"}, resp.NullArray},
			{Ctx{InMulti: true}, []string{"brpoplpush", "none", "d", "0"}, resp.Null},
			{Ctx{InMulti: true}, []string{"blmove", "none", "d", "left", "left", "0"}, resp.Null},
			{Ctx{InMulti: true}, []string{"blmpop", "0", "1", "none", "left"}, resp.NullArray},
			{Ctx{InScript: true}, []string{"blmpop", "0", "1", "none", "left"}, resp.NullArray},
			{Ctx{TimedOut: true, Retrying: true}, []string{"brpoplpush", "none", "d", "0"}, resp.NullArray},
			{Ctx{TimedOut: true, Retrying: true}, []string{"blmove", "none", "d", "left", "left", "0"}, resp.NullArray},
			{Ctx{TimedOut: true, Retrying: true}, []string{"blpop", "none", "0"}, resp.NullArray},
		} {
			c := tc.ctx
			if v := run(t, tx, &c, tc.args...); v.Kind != tc.want || c.Block != nil {
				t.Errorf("%q: reply %+v block %v, want kind %d", tc.args, v, c.Block, tc.want)
			}
		}
		// Otherwise it asks to wait on its keys, in the selected database.
		tx.Select(2)
		c := Ctx{}
		if v := run(t, tx, &c, "blpop", "a", "b", "1.5"); c.Block == nil || v.Kind != 255 || c.Block.DB != 2 ||
			len(c.Block.Keys) != 2 || c.Block.Keys[1] != "b" || c.Block.Timeout != 1500*time.Millisecond {
			t.Errorf("blpop did not block as expected: %+v", c.Block)
		}
		c = Ctx{}
		if run(t, tx, &c, "blmove", "src", "dst", "left", "right", "0"); c.Block == nil || len(c.Block.Keys) != 1 || c.Block.Keys[0] != "src" {
			t.Errorf("blmove waits on its source only: %+v", c.Block)
		}
		// A retry passes over a key of another type and keeps waiting.
		tx.SetString("s", "x", 0, false)
		tx.ListPush("l", []string{"v"}, false, false)
		c = Ctx{Retrying: true}
		if v := run(t, tx, &c, "blpop", "s", "0"); c.Block == nil || v.Kind != 255 {
			t.Errorf("retry on a string: %+v %+v", v, c.Block)
		}
		c = Ctx{Retrying: true}
		if v := run(t, tx, &c, "blmpop", "0", "2", "s", "l", "left"); v.Kind != resp.Array || v.Array[0].Str != "l" {
			t.Errorf("retry past a string: %+v", v)
		}
		return nil
	})
}

func TestParseBlockTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0", 0, ""}, {"1", time.Second, ""}, {"0.5", 500 * time.Millisecond, ""},
		{"0.0001", time.Millisecond, ""}, {"1e-400", time.Millisecond, ""}, {"-0.0009", 0, ""},
		{"-1e-400", 0, ""}, {"0x10", 16 * time.Second, ""}, {"1e3", 1000 * time.Second, ""},
		{"9e15", 0, ""}, {"-1", 0, ErrTimeoutNeg}, {"inf", 0, ErrTimeoutNeg}, {"-inf", 0, ErrTimeoutNeg},
		{"9.3e15", 0, ErrTimeoutNeg}, {"1e400", 0, ErrTimeoutNeg}, {"1e5000", 0, ErrTimeoutNotFloat},
		{"1e-5000", 0, ErrTimeoutNotFloat}, {"nan", 0, ErrTimeoutNotFloat}, {" 1", 0, ErrTimeoutNotFloat},
		{"1 ", 0, ErrTimeoutNotFloat}, {"", 0, ErrTimeoutNotFloat}, {"x", 0, ErrTimeoutNotFloat},
	} {
		d, msg := ParseBlockTimeout([]byte(tc.in))
		if d != tc.want || msg != tc.err {
			t.Errorf("%q: %v %q, want %v %q", tc.in, d, msg, tc.want, tc.err)
		}
	}
}

// A multi-key blocking call is served from the one key that got data.
func TestServeKeyNarrowsToTheKeyServed(t *testing.T) {
	split := func(s string) [][]byte {
		var out [][]byte
		for _, f := range strings.Fields(s) {
			out = append(out, []byte(f))
		}
		return out
	}
	for _, c := range []struct {
		name, call, key, want string
	}{
		{"blpop", "blpop a b c 5", "b", "blpop b 5"},
		{"blpop", "blpop a 5", "a", "blpop a 5"},
		{"bzpopmax", "bzpopmax a b 0", "a", "bzpopmax a 0"},
		{"blmpop", "blmpop 0 3 a b c left count 2", "c", "blmpop 0 1 c left count 2"},
		{"bzmpop", "bzmpop 1 1 a min", "a", "bzmpop 1 1 a min"},
		{"blmpop", "blmpop 0 x a b left", "a", "blmpop 0 x a b left"},
	} {
		cmd := Default().Lookup([]byte(c.name))
		got := bytes.Join(cmd.ServeKey(split(c.call), c.key), []byte(" "))
		if string(got) != c.want {
			t.Errorf("%s from %s: %q, want %q", c.call, c.key, got, c.want)
		}
	}
}
