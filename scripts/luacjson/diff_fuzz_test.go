package luacjson_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// fuzzPieces are fragments random JSON-ish inputs are built from, chosen
// to reach every token type, escape and number form, valid or not.
var fuzzPieces = []string{"{", "}", "[", "]", ",", ":", " ", "\t", "\n", `"a"`, `"`, `\`, `\u00e9`, `\ud83d\ude00`,
	`\ud800`, `\u12`, `\n`, `\/`, `\x`, "1", "-", "0", "0x1f", "1e5", "1.5", ".", "e", "+", "true", "tru", "false", "null",
	"nul", "Infinity", "-inf", "NaN", "nan", "a", "\x00", "\x01", "\xff", "é", "1e999", "007", `"k":`, `"s"`}

func randomJSON(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.Intn(8) + 1; n > 0; n-- {
		b.WriteString(fuzzPieces[rng.Intn(len(fuzzPieces))])
	}
	return b.String()
}

// TestDifferentialCJSONFuzz decodes thousands of random inputs in both
// interpreters and compares the error texts (with character positions) or
// the re-encoded values.
func TestDifferentialCJSONFuzz(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	script := `local out = {}
for i, s in ipairs(ARGV) do
  local ok, v = pcall(cjson.decode, s)
  if ok then
    local ok2, e = pcall(cjson.encode, v)
    out[i] = (ok2 and 'OK ' or 'ENC ') .. e
  else
    out[i] = 'ERR ' .. v
  end
end
return out`
	var cs []difftest.Case
	for batch := 0; batch < 10; batch++ {
		var argv []string
		for i := 0; i < 400; i++ {
			argv = append(argv, randomJSON(rng))
		}
		cs = append(cs, difftest.Case{Script: script, Argv: argv, JSON: true})
	}
	r := difftest.StartRedis(t)
	n := difftest.Run(t, r, cs)
	t.Logf("fuzz: %d/%d batches of 400 random inputs match redis-server", n, len(cs))
}
