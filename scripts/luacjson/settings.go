package luacjson

import (
	"fmt"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	lua "github.com/yuin/gopher-lua"
)

// argInit mirrors json_arg_init: at most n arguments, missing ones are nil.
func argInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		clua.ArgError(L, n+1, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// intOption mirrors json_integer_option, including its quirks: the value
// is truncated to a C int, and range errors always name argument #1.
func intOption(L *lua.LState, idx int, setting *int32, min, max int32) {
	if L.Get(idx) != lua.LNil {
		v := int32(clua.CheckInteger(L, idx))
		if v < min || v > max {
			clua.ArgError(L, 1, fmt.Sprintf("expected integer between %d and %d", min, max))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

// enumOption mirrors json_enum_option: a boolean or one of the option names.
func enumOption(L *lua.LState, idx int, setting *int, options []string) {
	if v := L.Get(idx); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			name := clua.CheckString(L, idx)
			found := -1
			for i, o := range options {
				if o == name {
					found = i
					break
				}
			}
			if found < 0 {
				clua.ArgError(L, idx, fmt.Sprintf("invalid option '%s'", name))
			}
			*setting = found
		}
	}
	if *setting <= 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

var boolOptions = []string{"off", "on"}

func boolOption(L *lua.LState, idx int, setting *bool) {
	v := 0
	if *setting {
		v = 1
	}
	enumOption(L, idx, &v, boolOptions)
	*setting = v == 1
}

func (c *config) setSparseArray(L *lua.LState) int {
	c.changed = true
	argInit(L, 3)
	boolOption(L, 1, &c.sparseConvert)
	intOption(L, 2, &c.sparseRatio, 0, 1<<31-1)
	intOption(L, 3, &c.sparseSafe, 0, 1<<31-1)
	return 3
}

func (c *config) setEncodeMaxDepth(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	intOption(L, 1, &c.encodeMaxDepth, 1, 1<<31-1)
	return 1
}

func (c *config) setDecodeMaxDepth(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	intOption(L, 1, &c.decodeMaxDepth, 1, 1<<31-1)
	return 1
}

func (c *config) setPrecision(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	intOption(L, 1, &c.precision, 1, 14)
	return 1
}

func (c *config) setKeepBuffer(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	boolOption(L, 1, &c.keepBuffer)
	return 1
}

func (c *config) setEncodeInvalid(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	enumOption(L, 1, &c.encodeInvalid, []string{"off", "on", "null"})
	return 1
}

func (c *config) setDecodeInvalid(L *lua.LState) int {
	c.changed = true
	argInit(L, 1)
	boolOption(L, 1, &c.decodeInvalid)
	return 1
}
