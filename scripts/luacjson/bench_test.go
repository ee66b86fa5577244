package luacjson_test

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts/luacjson"
	lua "github.com/yuin/gopher-lua"
)

const jobJSON = `{"jid":"4df4ca8b6f1f4a0d9e0c8d5b1e2f3a4b","klass":"myapp.jobs.SendEmail","state":"waiting",
"queue":"emails","worker":"","tracked":false,"priority":0,"expires":0,"retries":5,"remaining":5,
"data":"{\"to\":\"someone@example.com\",\"subject\":\"hi\"}","tags":["a","b"],
"history":[{"when":1700000000,"q":"emails","what":"put"}],"failure":{},"dependents":[],"dependencies":[],
"spawned_from_jid":false,"throttles":["ql:q:emails"]}`

func BenchmarkDecodeEncodeJob(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("cjson", luacjson.Load(L))
	fn, err := L.LoadString(`local s = ... return cjson.encode(cjson.decode(s))`)
	if err != nil {
		b.Fatal(err)
	}
	in := lua.LString(strings.ReplaceAll(jobJSON, "\n", ""))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		L.Push(fn)
		L.Push(in)
		if err := L.PCall(1, 1, nil); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

func BenchmarkDecodeLargeNumberArray(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("cjson", luacjson.Load(L))
	fn, err := L.LoadString(`local s = ... return #cjson.decode(s)`)
	if err != nil {
		b.Fatal(err)
	}
	in := lua.LString("[" + strings.Repeat("123.456,", 100000) + "1]")
	for i := 0; i < b.N; i++ {
		L.Push(fn)
		L.Push(in)
		if err := L.PCall(1, 1, nil); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}
