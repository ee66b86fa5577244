package luacmsgpack_test

import (
	"math/rand"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// TestDifferentialCmsgpackFuzz unpacks random byte strings (biased towards
// type bytes and small lengths) in both interpreters.
func TestDifferentialCmsgpackFuzz(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	heads := []byte{0xc0, 0xc2, 0xc3, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xca, 0xcb, 0xd9, 0xda, 0xdb,
		0xdc, 0xdd, 0xde, 0xdf, 0x91, 0x92, 0x81, 0x82, 0xa1, 0xa3, 0x05, 0xff, 0xe0, 0xc1, 0xc4, 0x00}
	script := helpers + `local out = {}
-- select('#') keeps nils inside the results; '#' on a table with holes
-- differs between Lua 5.1 and gopher-lua.
local function results(...)
  local n, parts = select('#', ...), {}
  for j = 2, n do parts[#parts+1] = dump((select(j, ...))) end
  if (...) then return 'OK ' .. table.concat(parts, ' ') end
  return 'ERR ' .. tostring((select(2, ...)))
end
for i, s in ipairs(ARGV) do
  out[i] = results(pcall(cmsgpack.unpack, s)) .. ' | ' .. results(pcall(cmsgpack.unpack_one, s))
end
return out`
	var cs []difftest.Case
	for batch := 0; batch < 5; batch++ {
		var argv []string
		for i := 0; i < 400; i++ {
			b := make([]byte, rng.Intn(10))
			for j := range b {
				if rng.Intn(2) == 0 {
					b[j] = heads[rng.Intn(len(heads))]
				} else {
					b[j] = byte(rng.Intn(256))
				}
			}
			argv = append(argv, string(b))
		}
		cs = append(cs, difftest.Case{Script: script, Argv: argv})
	}
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("fuzz: %d/%d batches of 400 random inputs match redis-server", n, len(cs))
}
