package tests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Long arguments (32 KB and more) are read into buffers of their own, and a
// long string's stored item is built in its journal record: values of
// every size around those paths' limits, pipelined with commands that hand
// the connection from the event loop to a goroutine of its own (MULTI),
// sent in small pieces, must come back byte for byte, and again after a
// restart. Each connection mode runs (bigValueModes). It measures no time
// or memory, so runs beside other tests.
func TestBigValuesRoundTripAndSurviveRestart(t *testing.T) {
	t.Parallel()
	for _, mode := range bigValueModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--appendfsync", "always"}, mode.args...)
			q := StartQlessd(t, dir, args...)
			values := map[string][]byte{
				"edge": bigTestValue(32<<10-1, 1), "big": bigTestValue(32<<10, 2),
				"mid": bigTestValue(100<<10, 3), "item": bigTestValue(1<<20+1, 4),
				// 40 MB in one SET; a few MB in MSET and behind MULTI, enough
				// to be read in part when the loop hands the connection over
				// (it reads 1 MB of a long argument per turn), small enough
				// to reload fast on a loaded machine.
				"huge1": bigTestValue(40<<20, 5), "huge2": bigTestValue(6<<20, 6),
				"queued": bigTestValue(6<<20, 7),
			}
			var in bytes.Buffer
			want := ""
			for _, k := range []string{"edge", "big", "mid", "item", "huge1"} {
				writeCommand(&in, []byte("SET"), []byte(k), values[k])
				want += "+OK\r\n"
			}
			writeCommand(&in, []byte("MSET"), []byte("huge2"), values["huge2"], []byte("small"), []byte("s"))
			writeCommand(&in, []byte("MULTI"))
			writeCommand(&in, []byte("SET"), []byte("queued"), values["queued"])
			writeCommand(&in, []byte("EXEC"))
			writeCommand(&in, []byte("GET"), []byte("small"))
			want += "+OK\r\n+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n$1\r\ns\r\n"
			if got := sendInPieces(t, q.Addr, in.Bytes(), len(want)); got != want {
				t.Fatalf("replies %q, want %q", got, want)
			}
			checkValues(t, q.Addr, values)
			q.Stop()
			q = StartQlessd(t, dir, args...)
			checkValues(t, q.Addr, values)
		})
	}
}

// A client that goes away in the middle of a long argument leaves the
// server serving, the key it was setting unchanged.
func TestBigValuesClientGoneMidBulk(t *testing.T) {
	t.Parallel()
	for _, mode := range bigValueModes {
		t.Run(mode.name, func(t *testing.T) {
			q := StartQlessd(t, "", mode.args...)
			ctx := context.Background()
			// a long SET may take a while on a loaded machine
			rdb := redis.NewClient(&redis.Options{Addr: q.Addr, ReadTimeout: 5 * time.Minute, WriteTimeout: 5 * time.Minute})
			defer rdb.Close()
			if err := rdb.Set(ctx, "k", "before", 0).Err(); err != nil {
				t.Fatal(err)
			}
			for _, sent := range []int{0, 1, 100 << 10, 10 << 20} {
				c, err := net.Dial("tcp", q.Addr)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n", 40<<20)
				if _, err := c.Write(bigTestValue(sent, 8)); err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			// The server has read the last one's bytes (or given up on
			// them) once a command sent after it on another connection is
			// answered; either way the key is untouched.
			v := bigTestValue(40<<20, 9)
			if err := rdb.Set(ctx, "other", v, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "before" {
				t.Fatalf("k = %q, %v", got, err)
			}
			checkValues(t, q.Addr, map[string][]byte{"other": v})
		})
	}
}

// bigValueModes are the connection modes the big-value tests run in, each
// named in full whatever QLESSD_ARGS says: make test's e2e step runs all
// three, so the tests are not in the Makefile's MODE_TEST_NAMES (the mode
// steps would run the same three again).
var bigValueModes = []struct {
	name string
	args []string
}{
	{"event-loop", []string{"--event-loop", "yes", "--event-loops", "1", "--io-uring", "yes"}},
	{"goroutines", []string{"--event-loop", "no"}},
	{"two-loops", []string{"--event-loop", "yes", "--event-loops", "2", "--io-uring", "no"}},
}

// bigTestValue is n bytes of a pattern that holds CR, LF and every other
// byte, different for every seed.
func bigTestValue(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 37))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		x := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(x >> (8 * j))
		}
	}
	return b
}

func writeCommand(w *bytes.Buffer, args ...[]byte) {
	fmt.Fprintf(w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(w, "$%d\r\n", len(a))
		w.Write(a)
		w.WriteString("\r\n")
	}
}

// sendInPieces writes b in pieces of up to 64 KB of random sizes while
// reading the replies, and returns the first want bytes of them.
func sendInPieces(t *testing.T, addr string, b []byte, want int) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Minute))
	wrote := make(chan error, 1)
	go func() {
		r := rand.New(rand.NewPCG(1, 2))
		for len(b) > 0 {
			n := min(len(b), 1+r.IntN(64<<10))
			if _, err := c.Write(b[:n]); err != nil {
				wrote <- err
				return
			}
			b = b[n:]
		}
		wrote <- nil
	}()
	got := make([]byte, want)
	if _, err := io.ReadFull(bufio.NewReader(c), got); err != nil {
		t.Fatalf("read replies: %v (so far %q)", err, got)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	return string(got)
}

func checkValues(t *testing.T, addr string, values map[string][]byte) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 5 * time.Minute, WriteTimeout: 5 * time.Minute})
	defer rdb.Close()
	for k, v := range values {
		got, err := rdb.Get(context.Background(), k).Bytes()
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("%s: %d bytes back, %d sent, equal %v, %v; starts %q", k, len(got), len(v), bytes.Equal(got, v), err, strings.ToValidUTF8(string(got[:min(len(got), 16)]), "?"))
		}
	}
}

// A long value read off the connection is kept by the store in the buffer
// it was read into, its journal record written around it: every command
// that keeps such a value, alone or pipelined with short writes, with an
// expiry, replacing another, through a script, MULTI, and with a key too
// long for the room before it, must keep the bytes it was sent, and again
// after a restart.
func TestBigValuesKeptInTheirReadBuffers(t *testing.T) {
	t.Parallel()
	for _, mode := range bigValueModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--appendfsync", "always"}, mode.args...)
			q := StartQlessd(t, dir, args...)
			v := func(seed uint64, n int) []byte { return bigTestValue(n, 20+seed) }
			longKey := strings.Repeat("k", 5000)
			values := map[string][]byte{
				"ttl": v(2, 2<<20+3), "a": v(3, 3<<20), "b": []byte("small"), "e1": v(4, 2<<20),
				"e2": v(4, 2<<20), "m1": v(5, 1<<20+1), "m2": v(5, 1<<20+1), "nx": v(8, 2<<20),
				"k": append(v(6, 2<<20), "tail"...), longKey: v(9, 2<<20),
			}
			old := v(1, 2<<20)
			var in bytes.Buffer
			cmd := func(a ...[]byte) { writeCommand(&in, a...) }
			b := func(s string) []byte { return []byte(s) }
			cmd(b("SET"), b("ttl"), old, b("EX"), b("100000"))
			cmd(b("SET"), b("ttl"), values["ttl"], b("KEEPTTL"), b("GET"))
			want := fmt.Sprintf("+OK\r\n$%d\r\n%s\r\n", len(old), old)
			cmd(b("SET"), b("a"), values["a"])
			cmd(b("INCR"), b("n"))
			cmd(b("SET"), b("b"), b("small"))
			want += "+OK\r\n:1\r\n+OK\r\n"
			cmd(b("EVAL"), b("redis.call('set', KEYS[1], ARGV[1]) redis.call('set', KEYS[2], ARGV[1]) return redis.call('strlen', KEYS[2])"),
				b("2"), b("e1"), b("e2"), values["e1"])
			want += fmt.Sprintf(":%d\r\n", len(values["e1"]))
			cmd(b("MULTI"))
			cmd(b("SET"), b("m1"), values["m1"])
			cmd(b("SET"), b("m2"), values["m2"])
			cmd(b("EXEC"))
			want += "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n"
			cmd(b("SET"), b("k"), values["k"][:2<<20])
			cmd(b("APPEND"), b("k"), b("tail"))
			cmd(b("SET"), b("nx"), values["nx"], b("NX"))
			cmd(b("SET"), b(longKey), values[longKey])
			want += fmt.Sprintf("+OK\r\n:%d\r\n+OK\r\n+OK\r\n", len(values["k"]))
			if got := sendInPieces(t, q.Addr, in.Bytes(), len(want)); got != want {
				t.Fatalf("replies differ: %d bytes, want %d; starts %q", len(got), len(want), got[:min(len(got), 64)])
			}
			check := func() {
				t.Helper()
				checkValues(t, q.Addr, values)
				rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
				defer rdb.Close()
				if ttl, err := rdb.TTL(context.Background(), "ttl").Result(); err != nil || ttl <= 0 {
					t.Fatalf("ttl's TTL is %v, %v: KEEPTTL lost it", ttl, err)
				}
			}
			check()
			q.Stop()
			q = StartQlessd(t, dir, args...)
			check()
		})
	}
}
