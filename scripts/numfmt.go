package scripts

import (
	"github.com/qlessd/qlessd/scripts/internal/clua"
)

// fmtNumber renders a Lua number as Lua 5.1 does (LUA_NUMBER_FMT "%.14g"
// through glibc printf), which gopher-lua's own formatting does not.
func fmtNumber(f float64) string { return clua.FormatG(f, 14) }

// fmtArgNumber renders a number passed to redis.call as Redis 7.0 does
// (%.17g), so 0.1 travels as 0.10000000000000001 and 1e20 as 1e+20.
func fmtArgNumber(f float64) string { return clua.FormatG(f, 17) }

// str2number converts a string as Lua 5.1's luaO_str2d does on glibc.
// Its strtoul(s, 16) retry after a stray 'x' never succeeds where glibc's
// strtod (which reads hexadecimal itself) failed, so strtod alone decides.
func str2number(s string) (float64, bool) { return clua.Str2d(s) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
