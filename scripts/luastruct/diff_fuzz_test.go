package luastruct_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// TestDifferentialStructFuzz runs random formats through size, pack (with
// fixed arguments) and unpack of random data in both interpreters.
func TestDifferentialStructFuzz(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	opts := []string{"b", "B", "h", "H", "i", "I", "l", "L", "T", "f", "d", "x", "c2", "c0", "s", "i3", "I5", "i12",
		"<", ">", "!", "!2", "!4", " ", "c", "z", "!3"}
	script := helpers + `local out = {}
for i = 1, #ARGV, 2 do
  local f, data = ARGV[i], ARGV[i + 1]
  local a = try(struct.size, f)
  local b = try(function() return hex(struct.pack(f, 1, -2, 'abc', 3.5, 'de', 300, 'x', 7)) end)
  local c = try(struct.unpack, f, data)
  out[#out + 1] = a .. ' | ' .. b .. ' | ' .. c
end
return out`
	var cs []difftest.Case
	for batch := 0; batch < 5; batch++ {
		var argv []string
		for i := 0; i < 300; i++ {
			var f strings.Builder
			for n := rng.Intn(5) + 1; n > 0; n-- {
				f.WriteString(opts[rng.Intn(len(opts))])
			}
			data := make([]byte, rng.Intn(24))
			for j := range data {
				data[j] = byte(rng.Intn(256))
				if rng.Intn(4) == 0 {
					data[j] = 0
				}
			}
			argv = append(argv, f.String(), string(data))
		}
		cs = append(cs, difftest.Case{Script: script, Argv: argv})
	}
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("fuzz: %d/%d batches of 300 random formats match redis-server", n, len(cs))
}
