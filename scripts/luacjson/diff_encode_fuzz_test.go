package luacjson_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// genTable builds a random nested table from a seed with its own LCG, so
// Redis's Lua and gopher-lua build the same table; keys mix dense, sparse,
// zero, negative, fractional and string keys to drive array detection.
const genTable = `
local seed = tonumber(ARGV[1])
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n end
local strs = {'a', 'b', 'key', '', 'x/y', 'q"t', '1', 'é'}
local function value(depth, top)
  local k = top and 6 or rnd(depth > 3 and 5 or 7)
  if k == 0 then return rnd(1000) - 500 end
  if k == 1 then return (rnd(100000) - 50000) / (rnd(999) + 1) end
  if k == 2 then return strs[rnd(#strs) + 1] end
  if k == 3 then return rnd(2) == 0 end
  if k == 4 then return cjson.null end
  local t = {}
  for i = 1, rnd(14) do
    local kk = rnd(10)
    local key
    if kk < 5 then key = i elseif kk < 7 then key = rnd(40) + 1 elseif kk == 7 then key = strs[rnd(#strs) + 1]
    elseif kk == 8 then key = rnd(5) - 2 else key = rnd(20) / 4 end
    t[key] = value(depth + 1)
  end
  return t
end
`

func TestDifferentialCJSONEncodeFuzz(t *testing.T) {
	var cs []difftest.Case
	for seed := 1; seed <= 400; seed++ {
		cs = append(cs, difftest.Case{
			Script: genTable + "local ok, r = pcall(cjson.encode, value(0, true)) return r",
			Argv:   []string{fmt.Sprint(seed)},
			JSON:   true,
		})
	}
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("encode fuzz: %d/%d random tables encode the same as redis-server (objects compared parsed)", n, len(cs))
}
