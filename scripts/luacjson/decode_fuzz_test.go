package luacjson_test

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	"github.com/qlessd/qlessd/scripts/luacjson"
	lua "github.com/yuin/gopher-lua"
)

// FuzzDecode checks cjson.decode on any input: it returns a value or raises
// a Lua error, never a Go panic; on JSON that encoding/json reads it gives
// the same values; and what it decodes encodes and decodes back to the same
// values (not always the same text: an object's keys come out in the order
// its table holds them, which decoding sets as Redis's Lua would). make test runs it for a few seconds; the seed
// corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data string) {
		L := lua.NewState(lua.Options{SkipOpenLibs: true})
		defer L.Close()
		// Under a memory budget, as scripts run under lua-max-memory.
		L.SetContext(limits.NewBudget(64 << 20))
		mod := luacjson.Load(L)
		v, err := call(L, mod, "decode", lua.LString(data))
		if err != nil {
			checkRefusal(t, data, err)
			return
		}
		compareWithEncodingJSON(t, data, v)
		text, err := call(L, mod, "encode", v)
		if err != nil {
			// NaN and infinities (1e400) decode but do not encode.
			if !strings.Contains(err.Error(), "must not be NaN or Inf") {
				t.Fatalf("decode(%q) does not encode: %v", data, err)
			}
			return
		}
		again, err := call(L, mod, "decode", text)
		if err != nil {
			t.Fatalf("decode(%q) encodes to %q, which does not decode: %v", data, text, err)
		}
		if !luaEqual(v, again) {
			t.Fatalf("decode(%q) encodes to %q, which decodes to something else", data, text)
		}
	})
}

// call runs mod[fn](arg) under pcall: a Lua error comes back as err, a Go
// panic fails the fuzz run as a crash.
func call(L *lua.LState, mod *lua.LTable, fn string, arg lua.LValue) (lua.LValue, error) {
	L.Push(mod.RawGetString(fn))
	L.Push(arg)
	if err := L.PCall(1, 1, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			panic(err)
		}
		return nil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	return v, nil
}

// checkRefusal accepts a decode error on valid JSON only for what lua-cjson
// refuses by design: lone surrogate escapes, nesting past 1000 levels, and
// UTF-16/32 detection (a NUL among the first two bytes).
func checkRefusal(t *testing.T, data string, err error) {
	if !json.Valid([]byte(data)) {
		return
	}
	msg := err.Error()
	for _, ok := range []string{"invalid unicode escape code", "too many nested data structures", "does not support UTF-16"} {
		if strings.Contains(msg, ok) {
			return
		}
	}
	t.Fatalf("decode(%q) refuses valid JSON: %v", data, err)
}

// compareWithEncodingJSON checks v against encoding/json's reading of data,
// when that is strict JSON in valid UTF-8 (cjson keeps invalid bytes as they
// are, encoding/json replaces them) that encoding/json accepts.
func compareWithEncodingJSON(t *testing.T, data string, v lua.LValue) {
	if !json.Valid([]byte(data)) || !utf8.ValidString(data) {
		return
	}
	var want any
	if err := json.Unmarshal([]byte(data), &want); err != nil {
		return // a number past float64's range: cjson gives inf
	}
	if !sameValue(v, want) {
		t.Fatalf("decode(%q) differs from encoding/json's %#v", data, want)
	}
}

func sameValue(v lua.LValue, want any) bool {
	switch w := want.(type) {
	case nil:
		return v == luacjson.Null
	case bool:
		b, ok := v.(lua.LBool)
		return ok && bool(b) == w
	case float64:
		n, ok := v.(lua.LNumber)
		return ok && float64(n) == w && math.Signbit(float64(n)) == math.Signbit(w)
	case string:
		s, ok := v.(lua.LString)
		return ok && string(s) == w
	case []any:
		tb, ok := v.(*lua.LTable)
		if !ok || countKeys(tb) != len(w) {
			return false
		}
		for i, e := range w {
			if !sameValue(tb.RawGetInt(i+1), e) {
				return false
			}
		}
		return true
	case map[string]any:
		tb, ok := v.(*lua.LTable)
		if !ok || countKeys(tb) != len(w) {
			return false
		}
		for k, e := range w {
			if !sameValue(tb.RawGetString(k), e) {
				return false
			}
		}
		return true
	}
	return false
}

func countKeys(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}

// luaEqual compares decoded values: tables by content, numbers as cjson
// writes them, to 14 significant digits (encode_number_precision's
// default), so 100000000000001 and 1e+14 are the same.
func luaEqual(a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		y, ok := b.(lua.LNumber)
		return ok && strconv.FormatFloat(float64(x), 'g', 14, 64) == strconv.FormatFloat(float64(y), 'g', 14, 64)
	case *lua.LTable:
		y, ok := b.(*lua.LTable)
		if !ok || countKeys(x) != countKeys(y) {
			return false
		}
		same := true
		x.ForEach(func(k, v lua.LValue) {
			if same && !luaEqual(v, y.RawGet(k)) {
				same = false
			}
		})
		return same
	}
	return a == b
}
