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
