package commands

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// runZ runs one command line in a write transaction and returns its reply
// and the block request it made, if any.
func runZ(t *testing.T, db *store.DB, inMulti bool, line string) (resp.Value, *BlockRequest) {
	t.Helper()
	table := Default()
	args := [][]byte{}
	for _, f := range strings.Fields(line) {
		args = append(args, []byte(f))
	}
	var rec resp.Recorder
	c := &Ctx{W: &rec, Table: table, InMulti: inMulti}
	db.Update(func(tx *store.Tx) error {
		c.Tx = tx
		table.Dispatch(c, table.Lookup(args[0]), args)
		return nil
	})
	return rec.Value(), c.Block
}

func TestBZPopBlocksOnlyWhereAllowed(t *testing.T) {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, blk := runZ(t, db, false, "BZPOPMIN a b 1.5")
	if blk == nil || len(blk.Keys) != 2 || blk.Keys[1] != "b" || blk.Timeout.Milliseconds() != 1500 {
		t.Fatalf("block request %+v, reply %+v", blk, v)
	}
	v, blk = runZ(t, db, true, "BZPOPMIN a b 0")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("in MULTI: block %+v reply %+v", blk, v)
	}
	v, blk = runZ(t, db, true, "BZMPOP 0 1 a MIN")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("BZMPOP in MULTI: block %+v reply %+v", blk, v)
	}
	runZ(t, db, false, "ZADD b 2 x 1 y")
	v, blk = runZ(t, db, false, "BZPOPMAX a b 0")
	if blk != nil || len(v.Array) != 3 || v.Array[1].Str != "x" || v.Array[2].Str != "2" {
		t.Fatalf("served: block %+v reply %+v", blk, v)
	}
}
