package scripts

import (
	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// How redis.call's reply reaches the script, by protocol. Under RESP2 (the
// default) a map is a flat array, a set an array, a double its text, a
// boolean 1 or 0. After redis.setresp(3) Redis 7.0 gives RESP3's types as
// tables ({map=...}, {set=...}, {double=...}, {big_number=...},
// {verbatim_string=...}), booleans as Lua booleans and null as nil.

func (w *luaWriter) WriteMap(n int) {
	if !w.r3 {
		w.WriteArray(2 * n)
		return
	}
	w.wrapped("map", '%', n, 2*n)
}

func (w *luaWriter) WriteSet(n int) {
	if !w.r3 {
		w.WriteArray(n)
		return
	}
	w.wrapped("set", '~', n, n)
}

// wrapped puts {field=inner} and fills inner with the left elements to come.
func (w *luaWriter) wrapped(field string, kind byte, n, left int) {
	outer, inner := w.L.CreateTable(0, 1), w.L.CreateTable(0, n)
	outer.RawSetString(field, inner)
	w.put(outer, false)
	if left > 0 {
		w.stack = append(w.stack, luaFrame{t: inner, left: left, kind: kind})
	}
}

// one puts {field=v}.
func (w *luaWriter) one(field string, v lua.LValue) {
	t := w.L.CreateTable(0, 1)
	t.RawSetString(field, v)
	w.put(t, false)
}

func (w *luaWriter) WriteDouble(f float64) {
	if !w.r3 {
		w.WriteBulkString(resp.FormatDouble(f))
		return
	}
	w.one("double", lua.LNumber(f))
}

func (w *luaWriter) WriteBool(b bool) {
	switch {
	case w.r3:
		w.put(lua.LBool(b), false)
	case b:
		w.WriteInt(1)
	default:
		w.WriteInt(0)
	}
}

func (w *luaWriter) WriteBigNumber(s string) {
	if !w.r3 {
		w.WriteBulkString(s)
		return
	}
	w.one("big_number", lua.LString(s))
}

func (w *luaWriter) WriteVerbatim(s string) { w.WriteVerbatimExt("txt", s) }

func (w *luaWriter) WriteVerbatimExt(ext, s string) {
	if !w.r3 {
		w.WriteBulkString(s)
		return
	}
	for len(ext) < 3 {
		ext += " "
	}
	v := w.L.CreateTable(0, 2)
	v.RawSetString("string", lua.LString(s))
	v.RawSetString("format", lua.LString(ext[:3]))
	w.one("verbatim_string", v)
}

func (w *luaWriter) WritePairs(n int) {
	if !w.r3 {
		w.WriteArray(2 * n)
		return
	}
	w.WriteArray(n)
}

func (w *luaWriter) WritePair() {
	if w.r3 {
		w.WriteArray(2)
	}
}

// WritePush is never a command's reply; as an array it is harmless.
func (w *luaWriter) WritePush(n int) { w.WriteArray(n) }
