package scripts

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
)

// fakeHost runs a tiny GET/SET/DEL over a map, enough to exercise the bridge.
type fakeHost struct{ data map[string]string }

func (h *fakeHost) Lookup(name []byte) (bool, bool) {
	switch strings.ToLower(string(name)) {
	case "get", "ping":
		return true, false
	case "set", "del":
		return true, true
	}
	return false, false
}

func (h *fakeHost) Call(args [][]byte, w resp.Writer) {
	switch strings.ToLower(string(args[0])) {
	case "get":
		if v, ok := h.data[string(args[1])]; ok {
			w.WriteBulkString(v)
		} else {
			w.WriteNull()
		}
	case "set":
		h.data[string(args[1])] = string(args[2])
		w.WriteStatus("OK")
	case "ping":
		w.WriteStatus("PONG")
	default:
		w.WriteError("ERR Unknown Redis command called from script")
	}
}

func eval(t *testing.T, e *Engine, h Host, body string, keys ...string) resp.Value {
	t.Helper()
	var rec resp.Recorder
	var k [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	e.Eval(h, []byte(body), k, nil, &rec)
	return rec.Value()
}

func TestEngineBasics(t *testing.T) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	sha := SHA1([]byte("x = 1"))
	cases := []struct{ body, want string }{
		{"return 1", "1"},
		{"return 3.99", "3"},
		{"return 'a'", "a"},
		{"x = 1", "ERR user_script:1: Attempt to modify a readonly table script: " + sha + ", on @user_script:1."},
		{"return y", "ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: " + SHA1([]byte("return y")) + ", on @user_script:1."},
		{"\nerror('boom')", "ERR user_script:2: boom script: " + SHA1([]byte("\nerror('boom')")) + ", on @user_script:2."},
		{"return redis.call('nosuch')", "ERR Unknown Redis command called from script script: " + SHA1([]byte("return redis.call('nosuch')")) + ", on @user_script:1."},
		{"return tostring(1234567.5) .. ' ' .. tostring(1e15) .. ' ' .. tostring(math.huge)", "1234567.5 1e+15 inf"},
		{"return {tostring(tonumber('1e2')), tostring(tonumber('inf')), tostring(tonumber('0x10')), tostring(tonumber(' 3 ')), string.format('%d', 3.7), string.format('%5.2f', 3.14159), string.format('%x', 255.9)}", "[100 inf 16 3 3  3.14 ff]"},
		{"return {math.random(100), math.random(100), tostring(math.random())}", "[40 85 0.35333609737146]"},
		{"redis.call('set', 'k', 1.5) return redis.call('get', 'k')", "1.5"},
		{"return redis.call('ping')", "PONG"},
		{"return 1 +", "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"},
		{"function table.extend() end return type(table.extend)", "function"},
		{"return type(table.extend)", "nil"},
		{"return error(nil)", "ERR nil script: " + SHA1([]byte("return error(nil)")) + ", on @user_script:1."},
		{"rawset(_G,'zz',1) return zz", "ERR Attempt to modify a readonly table script: " + SHA1([]byte("rawset(_G,'zz',1) return zz")) + ", on @user_script:1."},
	}
	for _, c := range cases {
		got := show(eval(t, e, h, c.body))
		if got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}

func show(v resp.Value) string {
	switch v.Kind {
	case resp.Int:
		return itoa(v.Int)
	case resp.Array:
		var parts []string
		for _, e := range v.Array {
			parts = append(parts, show(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case resp.Null:
		return "(nil)"
	}
	return v.Str
}

func itoa(n int64) string { return fmtArgNumber(float64(n)) }

func TestLibrary(t *testing.T) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	if err := e.RegisterLibrary("lib", "local n = 0\nreturn function(cmd, a)\n if cmd == 'boom' then error('bad ' .. a) end\n if cmd == 'set' then return redis.call('set', 'k', a) end\n return {cmd, a}\nend"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"echo", "x"}, "[echo x]"},
		{[]string{"set", "v"}, "OK"},
		{[]string{"boom", "v"}, "ERR user_script:3: bad v"},
	} {
		var rec resp.Recorder
		var a [][]byte
		for _, s := range c.args {
			a = append(a, []byte(s))
		}
		e.CallLibrary(h, "lib", a, &rec)
		if got := show(rec.Value()); got != c.want {
			t.Errorf("%v: got %q want %q", c.args, got, c.want)
		}
	}
}

func TestRestoreUndoesLibraryChanges(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	for i := 0; i < 3; i++ {
		for _, c := range []struct{ body, want string }{
			{"string.x = 1 table[1] = 'a' math.pi = 3 string.format = nil return 1", "1"},
			{"return {type(string.x), type(table[1]), tostring(math.pi), type(string.format), #KEYS}", "[nil nil 3.1415926535898 function 0]"},
			{"return KEYS[1]", "k"},
		} {
			got := show(eval(t, e, h, c.body, "k"))
			if c.body == "return {type(string.x), type(table[1]), tostring(math.pi), type(string.format), #KEYS}" {
				got = show(eval(t, e, h, c.body))
			}
			if got != c.want {
				t.Errorf("round %d: %s: got %q want %q", i, c.body, got, c.want)
			}
		}
	}
}

// Concurrent calls, kills and flushes share the engine safely (run with -race).
func TestEngineConcurrent(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 2})
	sha, err := e.Load([]byte("return {KEYS[1], math.random(10), tostring(ARGV[1] * 2)}"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			h := &fakeHost{data: map[string]string{}}
			for i := 0; i < 200; i++ {
				var rec resp.Recorder
				e.EvalSHA(h, sha, [][]byte{[]byte("k")}, [][]byte{[]byte("21")}, &rec)
				v := rec.Value()
				if v.Kind == resp.Error {
					t.Errorf("goroutine %d: %s", g, v.Str)
				}
				if v.Kind == resp.Array && v.Array[2].Str != "42" {
					t.Errorf("goroutine %d: %v", g, v)
				}
				if i%50 == 0 {
					e.Kill()
					e.Busy()
				}
			}
			done <- true
		}(g)
	}
	for i := 0; i < 4; i++ {
		<-done
	}
}
