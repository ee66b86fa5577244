package resp

import "testing"

func TestRecorderNested(t *testing.T) {
	var r Recorder
	r.WriteArray(3)
	r.WriteInt(1)
	r.WriteArray(2)
	r.WriteBulkString("a")
	r.WriteArray(0)
	r.WriteStatus("OK")
	if !r.Written() {
		t.Fatal("not complete")
	}
	v := r.Value()
	if len(v.Array) != 3 || v.Array[0].Int != 1 || v.Array[1].Array[0].Str != "a" ||
		v.Array[1].Array[1].Kind != Array || v.Array[2].Str != "OK" {
		t.Fatalf("bad tree %+v", v)
	}
	r.Reset()
	r.WriteNull()
	if !r.Written() || r.Value().Kind != Null {
		t.Fatal("null")
	}
}
