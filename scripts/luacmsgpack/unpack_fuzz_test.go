package luacmsgpack_test

import (
	"math"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	"github.com/qlessd/qlessd/scripts/luacmsgpack"
	lua "github.com/yuin/gopher-lua"
)

// FuzzUnpack checks cmsgpack.unpack and unpack_one on any bytes: they
// return values or raise a Lua error, never a Go panic; and what unpack
// returns packs and unpacks back to the same values. It runs them under a
// memory budget, as scripts run under lua-max-memory. make test runs it
// for a few seconds; the seed corpus is in testdata/fuzz/FuzzUnpack.
func FuzzUnpack(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		L := lua.NewState(lua.Options{SkipOpenLibs: true})
		defer L.Close()
		L.SetContext(limits.NewBudget(fuzzBudget))
		mod := luacmsgpack.Load(L)
		// Either answer will do; a panic fails the run, in callAll.
		_, _ = callAll(L, mod, "unpack_one", lua.LString(data))
		vals, err := callAll(L, mod, "unpack", lua.LString(data))
		if err != nil || len(vals) == 0 {
			return
		}
		L.SetContext(limits.NewBudget(fuzzBudget))
		for _, v := range vals {
			if depth(v) > maxPackDepth {
				return // pack writes nil past 16 levels, as lua-cmsgpack does
			}
		}
		packed, err := callAll(L, mod, "pack", vals...)
		if err != nil {
			if strings.Contains(err.Error(), "Too many arguments") {
				return
			}
			t.Fatalf("unpack(%x) gives values pack refuses: %v", data, err)
		}
		again, err := callAll(L, mod, "unpack", packed...)
		if err != nil {
			t.Fatalf("unpack(%x) packs to %x, which does not unpack: %v", data, packed[0], err)
		}
		if len(again) != len(vals) {
			t.Fatalf("unpack(%x): %d values, after pack and unpack %d", data, len(vals), len(again))
		}
		for i := range vals {
			if !luaEqual(vals[i], again[i]) {
				t.Fatalf("unpack(%x): value %d differs after pack and unpack (%x)", data, i+1, packed[0])
			}
		}
	})
}

// fuzzBudget is the memory the modules may declare for one fuzz input.
const fuzzBudget = 64 << 20

// maxPackDepth is how deep pack goes: tables 16 levels down pack as nil.
const maxPackDepth = 16

// callAll runs mod[fn](args...) under pcall and returns every result; a
// Lua error comes back as err, a Go panic fails the run as a crash.
func callAll(L *lua.LState, mod *lua.LTable, fn string, args ...lua.LValue) ([]lua.LValue, error) {
	base := L.GetTop()
	L.Push(mod.RawGetString(fn))
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			panic(err)
		}
		return nil, err
	}
	out := make([]lua.LValue, 0, L.GetTop()-base)
	for i := base + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(base)
	return out, nil
}

// depth is how many tables deep v goes (0 for a plain value).
func depth(v lua.LValue) int {
	t, ok := v.(*lua.LTable)
	if !ok {
		return 0
	}
	d := 0
	t.ForEach(func(k, v lua.LValue) { d = max(d, depth(k), depth(v)) })
	return d + 1
}

// luaEqual compares unpacked values: numbers by value (NaN equal to NaN),
// tables by content, table keys too.
func luaEqual(a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		y, ok := b.(lua.LNumber)
		if ok && math.IsNaN(float64(x)) {
			return math.IsNaN(float64(y))
		}
		return ok && x == y
	case *lua.LTable:
		y, ok := b.(*lua.LTable)
		return ok && tableEqual(x, y)
	}
	return a == b
}

func tableEqual(x, y *lua.LTable) bool {
	n := 0
	y.ForEach(func(lua.LValue, lua.LValue) { n++ })
	same := true
	x.ForEach(func(k, v lua.LValue) {
		n--
		if !same {
			return
		}
		if _, isTable := k.(*lua.LTable); !isTable {
			same = luaEqual(v, y.RawGet(k))
			return
		}
		found := false
		y.ForEach(func(k2, v2 lua.LValue) {
			found = found || (luaEqual(k, k2) && luaEqual(v, v2))
		})
		same = found
	})
	return same && n == 0
}
