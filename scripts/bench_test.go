package scripts

import (
	"testing"

	"github.com/qlessd/qlessd/resp"
)

func BenchmarkEvalSHA(b *testing.B) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	body := []byte("local v = redis.call('get', KEYS[1]) redis.call('set', KEYS[1], ARGV[1]) return {v, tostring(1.5)}")
	sha, err := e.Load(body)
	if err != nil {
		b.Fatal(err)
	}
	keys, argv := [][]byte{[]byte("k")}, [][]byte{[]byte("v")}
	var rec resp.Recorder
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.EvalSHA(h, sha, keys, argv, &rec)
	}
}

// BenchmarkGsubLong is gsub over a long subject with a match at every
// byte: linear (gopher-lua's took 13 s for 1e5 bytes).
func BenchmarkGsubLong(b *testing.B) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	body := []byte("local s = string.rep('a', 100000) return #s:gsub('a', 'aaaa')")
	var rec resp.Recorder
	for i := 0; i < b.N; i++ {
		rec.Reset()
		e.Eval(h, body, nil, nil, &rec)
	}
}

// BenchmarkPcall is 1,000 protected calls a script, that return or fail.
func BenchmarkPcall(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"ok", "local n = 0 for i = 1, 1000 do local ok, v = pcall(function(a) return a + 1 end, i) n = n + v end return n"},
		{"error", "local n = 0 for i = 1, 1000 do local ok, e = pcall(error, 'x') if not ok then n = n + 1 end end return n"},
		{"xpcall", "local n = 0 for i = 1, 1000 do xpcall(function() n = n + 1 end, error) end return n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := NewEngine(Options{})
			h := &fakeHost{data: map[string]string{}}
			body := []byte(c.body)
			var rec resp.Recorder
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				rec.Reset()
				e.Eval(h, body, nil, nil, &rec)
			}
		})
	}
}
