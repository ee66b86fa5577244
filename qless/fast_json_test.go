package qless

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/luacjson"
	lua "github.com/yuin/gopher-lua"
)

// randomJSON writes a random JSON value of the shapes job data takes.
func randomJSON(rng *rand.Rand, depth int) string {
	switch k := rng.Intn(10); {
	case depth < 4 && k < 3:
		n := rng.Intn(5)
		parts := make([]string, n)
		for i := range parts {
			key := []string{`"a"`, `"b"`, `"a/b"`, `"é"`, `"1"`, `""`}[rng.Intn(6)]
			parts[i] = key + ":" + randomJSON(rng, depth+1)
		}
		return "{" + strings.Join(parts, []string{",", " , ", ",\n"}[rng.Intn(3)]) + "}"
	case depth < 4 && k < 5:
		n := rng.Intn(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(rng, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case k < 7:
		return []string{"0", "-0", "1", "0.1", "1e5", "1E-7", "123456789012345678", "1763790000000000000",
			"3.14159265358979", "-2.5e300", "1e400", "01", strconv.Itoa(rng.Int()),
			"1763790000000", "99999999999999", "-99999999999999", "100000000000000", "999999999999999",
			"-01", "-", "00", strconv.Itoa(rng.Intn(1e14))}[rng.Intn(21)]
	case k < 9:
		return []string{`"x"`, `"a/b"`, `"tab\tx"`, `"q\"x"`, `"\u00e9"`, `"é"`, `""`, `"line\n"`}[rng.Intn(8)]
	}
	return []string{"true", "false", "null"}[rng.Intn(3)]
}

// TestNormalizeJSONMatchesCJSON: whenever normalizeJSON answers, it is
// what cjson.encode(cjson.decode(s)) gives.
func TestNormalizeJSONMatchesCJSON(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("cjson", luacjson.Load(L))
	fn, err := L.LoadString(`local ok, v = pcall(function(s) return cjson.encode(cjson.decode(s)) end, ...) return ok, v`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	inputs := []string{`{"t":1763790000000000000,"pad":"xxxx"}`, `{"a":[1,2,{"b":"c/d"}],"e":null}`,
		`{"a":1,"a":2,"b":3}`, `{"a":{"x":1},"b":2,"a":[]}`, `[]`, `{}`, `[null,null]`, ` {}`, `{} `}
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, randomJSON(rng, 0))
	}
	answered := 0
	var buf []byte // reused, as heartbeat reuses its scratch
	for _, in := range inputs {
		var ok bool
		buf, ok = normalizeJSON(buf, in)
		got := string(buf)
		if !ok {
			continue
		}
		answered++
		L.Push(fn)
		L.Push(lua.LString(in))
		if err := L.PCall(1, 2, nil); err != nil {
			t.Fatal(err)
		}
		okv, v := L.Get(-2), L.Get(-1)
		L.Pop(2)
		if okv != lua.LTrue || string(got) != v.String() {
			t.Fatalf("%q: normalizeJSON %q, cjson %v %q", in, got, okv, v.String())
		}
	}
	if answered < len(inputs)/4 {
		t.Fatalf("answered only %d of %d", answered, len(inputs))
	}
	t.Logf("answered %d of %d inputs", answered, len(inputs))
}

// BenchmarkNormalizeJSONTypical is heartbeat data as clients send it (the
// one call whose data qless re-encodes): a few ids, a millisecond time,
// short strings.
func BenchmarkNormalizeJSONTypical(b *testing.B) {
	const data = `{"account":48213,"user":902117,"queued_at":1763790000000,"attempt":2,"kind":"email","to":"x@example.com"}`
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := normalizeJSON(nil, data); !ok {
			b.Fatal("not answered")
		}
	}
}
