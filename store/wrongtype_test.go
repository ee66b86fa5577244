package store_test

// The string commands' WRONGTYPE replies are tested here, in the store's
// test binary, because only it can create a key of another type without
// the commands of the other groups (see export_test.go). The differential
// tests in tests/ repeat these checks against Redis for every type whose
// commands exist.

import (
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

func TestStringCommandsWrongType(t *testing.T) {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	table := commands.Default()
	run := func(args ...string) resp.Value {
		var rec resp.Recorder
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		db.Update(func(tx *store.Tx) error {
			c := &commands.Ctx{Tx: tx, W: &rec, Table: table}
			table.Dispatch(c, table.Lookup(bargs[0]), bargs)
			return nil
		})
		return rec.Value()
	}
	const wt = commands.ErrWrongType
	for _, typ := range []store.Type{store.TypeHash, store.TypeList, store.TypeSet, store.TypeZSet} {
		db.Update(func(tx *store.Tx) error { tx.PutTypeForTest("w", typ); return nil })
		for _, c := range []struct {
			args []string
			want resp.Value
		}{
			{[]string{"GET", "w"}, errV(wt)},
			{[]string{"SET", "w", "v", "GET"}, errV(wt)},
			{[]string{"SET", "w", "v", "NX", "GET"}, errV(wt)},
			{[]string{"GETSET", "w", "v"}, errV(wt)},
			{[]string{"GETDEL", "w"}, errV(wt)},
			{[]string{"GETEX", "w", "EX", "-1"}, errV(wt)},
			{[]string{"INCR", "w"}, errV(wt)},
			{[]string{"DECRBY", "w", "2"}, errV(wt)},
			{[]string{"INCRBY", "w", "x"}, errV(commands.ErrNotInt)},
			{[]string{"INCRBYFLOAT", "w", "x"}, errV(wt)},
			{[]string{"APPEND", "w", "x"}, errV(wt)},
			{[]string{"STRLEN", "w"}, errV(wt)},
			{[]string{"GETRANGE", "w", "0", "1"}, errV(wt)},
			{[]string{"GETRANGE", "w", "x", "1"}, errV(commands.ErrNotInt)},
			{[]string{"SETRANGE", "w", "0", ""}, errV(wt)},
			{[]string{"SETRANGE", "w", "-1", "x"}, errV(commands.ErrOffsetRange)},
			{[]string{"MGET", "w"}, resp.Value{Kind: resp.Array, Array: []resp.Value{{Kind: resp.Null}}}},
			{[]string{"SETNX", "w", "v"}, resp.Value{Kind: resp.Int, Int: 0}},
			{[]string{"MSETNX", "w", "v"}, resp.Value{Kind: resp.Int, Int: 0}},
			{[]string{"TYPE", "w"}, resp.Value{Kind: resp.Status, Str: typ.String()}},
			{[]string{"BITFIELD", "w", "GET", "u8", "0"}, errV(wt)},
			{[]string{"BITFIELD_RO", "w", "SET", "u8", "0", "1"}, errV(commands.ErrBitfieldRO)},
			{[]string{"BITOP", "AND", "d", "w"}, errV(wt)},
			{[]string{"LCS", "w", "s"}, errV(commands.ErrLCSTypes)},
			{[]string{"SETBIT", "w", "0", "1"}, errV(wt)},
			{[]string{"SETBIT", "w", "-1", "1"}, errV(commands.ErrBitOffset)},
			{[]string{"BITCOUNT", "w", "0"}, errV(wt)},
			{[]string{"BITPOS", "w", "2"}, errV(commands.ErrBitArg)},
			{[]string{"BITPOS", "w", "1"}, errV(wt)},
			{[]string{"GETBIT", "w", "0"}, errV(wt)},
			{[]string{"BITFIELD", "w"}, errV(wt)},
			{[]string{"SET", "w", "v", "EX", "0", "GET"}, errV("ERR invalid expire time in 'set' command")},
			{[]string{"SET", "w", "v", "XX"}, resp.Value{Kind: resp.Status, Str: "OK"}},
			{[]string{"TYPE", "w"}, resp.Value{Kind: resp.Status, Str: "string"}},
		} {
			if got := run(c.args...); !equalValue(got, c.want) {
				t.Errorf("%s key: %q = %+v, want %+v", typ, c.args, got, c.want)
			}
		}
	}
}

func errV(msg string) resp.Value { return resp.Value{Kind: resp.Error, Str: msg} }

func equalValue(a, b resp.Value) bool {
	if a.Kind != b.Kind || a.Str != b.Str || a.Int != b.Int || len(a.Array) != len(b.Array) {
		return false
	}
	for i := range a.Array {
		if !equalValue(a.Array[i], b.Array[i]) {
			return false
		}
	}
	return true
}
