package luacjson_test

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// TestDifferentialCJSONNumbers feeds thousands of doubles through decode
// (strtod) and encode ("%.14g" and other precisions) in both interpreters.
func TestDifferentialCJSONNumbers(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var nums []string
	for i := 0; i < 3000; i++ {
		var f float64
		switch i % 4 {
		case 0:
			f = math.Float64frombits(rng.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 1.5
			}
		case 1:
			f = float64(rng.Int63n(1<<53)) / math.Pow(10, float64(rng.Intn(20)))
		case 2:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20))
		default:
			f = float64(rng.Int63()) * float64(1-2*rng.Intn(2))
		}
		nums = append(nums, strconv.FormatFloat(f, 'g', 17, 64))
	}
	// Decimal forms strtod rounds near halfway points, and hex forms.
	nums = append(nums, "0.1e1", "1.00000000000005", "1.000000000000005", "9.999999999999995", "0.30000000000000004",
		"2.2250738585072011e-308", "4.9406564584124654e-324", "2.4703282292062327e-324", "1.7976931348623158e308",
		"123456789012345.5", "12345678901234.55", "0x1.8p1", "0x.8", "0xABCDEFp-3", "-0x10", "1e-320")
	var cs []difftest.Case
	for start := 0; start < len(nums); start += 500 {
		end := min(start+500, len(nums))
		in := "[" + strings.Join(nums[start:end], ",") + "]"
		for _, p := range []int{14, 1, 6, 13} {
			cs = append(cs, difftest.Case{Script: fmt.Sprintf("cjson.encode_number_precision(%d) return cjson.encode(cjson.decode(ARGV[1]))", p), Argv: []string{in}})
		}
	}
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("numbers: %d/%d batches of up to 500 numbers match redis-server", n, len(cs))
}

// TestDifferentialCJSONStack covers nesting beyond Lua 5.1's C stack limit
// once the configured depth limits are raised.
func TestDifferentialCJSONStack(t *testing.T) {
	var cs []difftest.Case
	add := func(s string) { cs = append(cs, difftest.Case{Script: s}) }
	for _, n := range []int{3990, 3999, 4000, 4001, 7996, 7997, 7998, 8100} {
		add(fmt.Sprintf("cjson.encode_max_depth(100000) local t = {} local c = t for i = 2, %d do c[1] = {} c = c[1] end local ok, e = pcall(cjson.encode, t) return {tostring(ok), ok and #e or e}", n))
		add(fmt.Sprintf("cjson.encode_max_depth(100000) local t = {} local c = t for i = 2, %d do c.k = {} c = c.k end local ok, e = pcall(cjson.encode, t) return {tostring(ok), ok and #e or e}", n))
		add(fmt.Sprintf("cjson.decode_max_depth(100000) local ok, e = pcall(cjson.decode, string.rep('[', %d) .. string.rep(']', %d)) return {tostring(ok), ok and 'table' or e}", n, n))
		add(fmt.Sprintf("cjson.decode_max_depth(100000) local ok, e = pcall(cjson.decode, string.rep('{\"a\":', %d) .. '1' .. string.rep('}', %d)) return {tostring(ok), ok and 'table' or e}", n, n))
	}
	add("cjson.encode_max_depth(100000) local t = {} local c = t for i = 2, 3000 do if i % 2 == 0 then c[1] = {} c = c[1] else c.k = {} c = c.k end end local ok, e = pcall(cjson.encode, t) return {tostring(ok), ok and #e or e}")
	add("cjson.encode_max_depth(100000) local t = {} local c = t for i = 2, 6000 do if i % 2 == 0 then c[1] = {} c = c[1] else c.k = {} c = c.k end end local ok, e = pcall(cjson.encode, t) return {tostring(ok), ok and #e or e}")
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("stack limits: %d/%d cases match redis-server", n, len(cs))
}
