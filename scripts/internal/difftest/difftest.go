// Package difftest runs Lua snippets both in a real redis-server 7.0 (EVAL)
// and in a bare gopher-lua state holding this repository's cjson, cmsgpack,
// bit and struct modules, and renders both replies the same way so tests
// can compare them exactly.
package difftest

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/internal/redistest"
	"github.com/qlessd/qlessd/scripts/luabit"
	"github.com/qlessd/qlessd/scripts/luacjson"
	"github.com/qlessd/qlessd/scripts/luacmsgpack"
	"github.com/qlessd/qlessd/scripts/luastruct"
	lua "github.com/yuin/gopher-lua"
)

// Redis is a started redis-server with one raw connection.
type Redis struct {
	conn net.Conn
	rd   *bufio.Reader
}

// StartRedis starts redis-server on a free loopback port for this test.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	c, err := net.Dial("tcp", redistest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Redis{conn: c, rd: bufio.NewReader(c)}
}

// Do sends one command and returns its reply rendered by Render rules.
func (r *Redis) Do(t testing.TB, args ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := r.conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	s, err := r.read()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Eval runs a script in Redis after resetting its Lua state, so settings
// changed by one snippet (cjson's are global there) never leak into the next.
func (r *Redis) Eval(t testing.TB, script string, argv ...string) string {
	t.Helper()
	r.Do(t, "SCRIPT", "FLUSH")
	reply := r.Do(t, append([]string{"EVAL", script, "0"}, argv...)...)
	// Redis names the script in uncaught errors; the library texts before
	// that are what must match.
	return scriptSuffix.ReplaceAllString(reply, "")
}

func (r *Redis) read() (string, error) {
	line, err := r.rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+', '-', ':':
		return line, nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "nil", nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(r.rd, buf); err != nil {
			return "", err
		}
		return strconv.Quote(string(buf[:n])), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "nil", nil
		}
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = r.read(); err != nil {
				return "", err
			}
		}
		return "[" + strings.Join(parts, " ") + "]", nil
	}
	return "", fmt.Errorf("bad reply line %q", line)
}

func ioReadFull(rd *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := rd.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

var scriptSuffix = regexp.MustCompile(` script: [0-9a-f]{40}, on @user_script:[0-9]+\.$`)

// NewState returns a gopher-lua state with the four modules as globals.
// Its registry may grow past Lua 5.1's 8000-slot C stack limit, so that
// the libraries' own emulation of that limit is what gets exercised.
func NewState() *lua.LState {
	L := lua.NewState(lua.Options{RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 80})
	L.SetGlobal("cjson", luacjson.Load(L))
	L.SetGlobal("cmsgpack", luacmsgpack.Load(L))
	L.SetGlobal("bit", luabit.Load(L))
	L.SetGlobal("struct", luastruct.Load(L))
	return L
}

// Eval runs a script in a fresh gopher-lua state, chunk named as Redis
// names it, and renders the result as Redis would reply to EVAL.
func Eval(script string, argv ...string) string {
	L := NewState()
	defer L.Close()
	keys := L.NewTable()
	args := L.NewTable()
	for i, a := range argv {
		args.RawSetInt(i+1, lua.LString(a))
	}
	L.SetGlobal("KEYS", keys)
	L.SetGlobal("ARGV", args)
	fn, err := L.Load(strings.NewReader(script), "user_script")
	if err != nil {
		return "-COMPILE " + err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return "-ERR " + ae.Object.String()
		}
		return "-ERR " + err.Error()
	}
	return Render(L.Get(-1))
}

// Render converts a Lua value as Redis 7.0 converts script results (RESP2).
func Render(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return strconv.Quote(string(x))
	case lua.LNumber:
		return ":" + strconv.FormatInt(int64(float64(x)), 10)
	case lua.LBool:
		if x {
			return ":1"
		}
		return "nil"
	case *lua.LTable:
		if e, ok := x.RawGetString("err").(lua.LString); ok {
			return "-" + string(e)
		}
		if s, ok := x.RawGetString("ok").(lua.LString); ok {
			return "+" + string(s)
		}
		var parts []string
		for i := 1; ; i++ {
			e := x.RawGetInt(i)
			if e == lua.LNil {
				break
			}
			parts = append(parts, Render(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "nil"
}
