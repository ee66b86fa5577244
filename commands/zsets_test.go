package commands_test

import (
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// runZ runs one command line, in MULTI when inMulti, and returns its reply
// and the block request it made, if any.
func runZ(t *testing.T, h *harness, inMulti bool, line string) (resp.Value, *commands.BlockRequest) {
	t.Helper()
	args, ok := resp.SplitArgs([]byte(line), nil)
	if !ok {
		t.Fatalf("bad line %q", line)
	}
	v, c := h.Run(args, func(c *commands.Ctx) { c.InMulti = inMulti })
	return v, c.Block
}

func TestBZPopBlocksOnlyWhereAllowed(t *testing.T) {
	h := newHarness(t)
	v, blk := runZ(t, h, false, "BZPOPMIN a b 1.5")
	if blk == nil || len(blk.Keys) != 2 || blk.Keys[1] != "b" || blk.Timeout.Milliseconds() != 1500 {
		t.Fatalf("block request %+v, reply %+v", blk, v)
	}
	v, blk = runZ(t, h, true, "BZPOPMIN a b 0")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("in MULTI: block %+v reply %+v", blk, v)
	}
	v, blk = runZ(t, h, true, "BZMPOP 0 1 a MIN")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("BZMPOP in MULTI: block %+v reply %+v", blk, v)
	}
	runZ(t, h, false, "ZADD b 2 x 1 y")
	v, blk = runZ(t, h, false, "BZPOPMAX a b 0")
	if blk != nil || len(v.Array) != 3 || v.Array[1].Str != "x" || v.Array[2].Str != "2" {
		t.Fatalf("served: block %+v reply %+v", blk, v)
	}
}
