// Package luacjson is lua-cjson 2.1.0 as Redis 7.0 bundles it, for
// gopher-lua: the same JSON text out, the same values in, the same errors.
package luacjson

import (
	lua "github.com/yuin/gopher-lua"
)

// Null is cjson.null, the value JSON null decodes to. In Redis it is a NULL
// lightuserdata, so every cjson module shares it; here it is one userdata.
var Null = &lua.LUserData{}

// config holds one module instance's settings (lua-cjson keeps them in an
// upvalue shared by the functions of one cjson table).
type config struct {
	settings
	changed bool // a setter ran since the last reset

	enc encoder // reused by encode
	dec decoder // reused by decode
}

type settings struct {
	sparseConvert  bool
	sparseRatio    int32
	sparseSafe     int32
	encodeMaxDepth int32
	decodeMaxDepth int32
	encodeInvalid  int // 0 off, 1 on, 2 null
	decodeInvalid  bool
	keepBuffer     bool
	precision      int32
}

func newConfig() *config { return &config{settings: defaults} }

var defaults = settings{
	sparseRatio:    2,
	sparseSafe:     10,
	encodeMaxDepth: 1000,
	decodeMaxDepth: 1000,
	decodeInvalid:  true,
	keepBuffer:     true,
	precision:      14,
}

// Load builds a fresh cjson module table.
func Load(L *lua.LState) *lua.LTable {
	mod, _ := LoadResettable(L)
	return mod
}

// LoadResettable is Load, with a function that puts the module's settings
// (encode_number_precision and the others) back to lua-cjson's defaults.
func LoadResettable(L *lua.LState) (*lua.LTable, func()) {
	cfg := newConfig()
	mod := L.NewTable()
	fns := map[string]lua.LGFunction{
		"encode":                  cfg.encode,
		"decode":                  cfg.decode,
		"encode_sparse_array":     cfg.setSparseArray,
		"encode_max_depth":        cfg.setEncodeMaxDepth,
		"decode_max_depth":        cfg.setDecodeMaxDepth,
		"encode_number_precision": cfg.setPrecision,
		"encode_keep_buffer":      cfg.setKeepBuffer,
		"encode_invalid_numbers":  cfg.setEncodeInvalid,
		"decode_invalid_numbers":  cfg.setDecodeInvalid,
		"new":                     newModule,
	}
	// Fixed order so the table iterates the same way on every run.
	for _, name := range []string{"encode", "decode", "encode_sparse_array",
		"encode_max_depth", "decode_max_depth", "encode_number_precision",
		"encode_keep_buffer", "encode_invalid_numbers", "decode_invalid_numbers", "new"} {
		mod.RawSetString(name, L.NewFunction(fns[name]))
	}
	mod.RawSetString("null", Null)
	mod.RawSetString("_NAME", lua.LString("cjson"))
	mod.RawSetString("_VERSION", lua.LString("2.1.0"))
	return mod, cfg.reset
}

func (c *config) reset() {
	if c.changed {
		c.settings, c.changed = defaults, false
	}
}

func newModule(L *lua.LState) int {
	L.Push(Load(L))
	return 1
}
