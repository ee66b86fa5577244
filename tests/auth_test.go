package tests

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// helloNorm masks the field of a HELLO reply that differs by design, the
// connection id; the version is the Redis version qlessd speaks, as INFO's
// redis_version.
var helloID = regexp.MustCompile(`id\r\n:\d+\r\n`)

func normHello(s string) string {
	return helloID.ReplaceAllString(s, "id\r\nID\r\n")
}

func startAuthPair(t *testing.T, pass string) *Pair {
	var qargs, rargs []string
	if pass != "" {
		qargs, rargs = []string{"--requirepass", pass}, []string{"--requirepass", pass}
	}
	qp, rp := StartQlessd(t, "", qargs...), StartRedis(t, rargs...)
	return &Pair{Q: DialRaw(t, qp.Addr), R: DialRaw(t, rp.Addr), QP: qp, RP: rp}
}

func sameHello(t *testing.T, p *Pair, args ...string) {
	t.Helper()
	q, r := normHello(p.Q.Do(t, args...)), normHello(p.R.Do(t, args...))
	if q != r {
		t.Errorf("%s\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
	}
}

func TestAuthRequirePass(t *testing.T) {
	t.Parallel()
	p := startAuthPair(t, "s3cret")
	for _, c := range [][]string{
		{"PING"}, {"GET", "x"}, {"SET", "x", "y"}, {"NOSUCH", "a"}, {"GET"}, {"MULTI"}, {"SUBSCRIBE", "c"},
		{"SELECT", "1"}, {"CLIENT", "ID"},
		{"AUTH"}, {"AUTH", "wrong"}, {"AUTH", "a", "b", "c"}, {"AUTH", "default", "wrong"}, {"AUTH", "bob", "s3cret"},
		{"HELLO"}, {"HELLO", "2"}, {"HELLO", "2", "AUTH", "default", "nope"}, {"HELLO", "1"},
		{"PING"},
		{"AUTH", "s3cret"}, {"PING"}, {"SET", "x", "y"}, {"GET", "x"},
		{"AUTH", "wrong"}, {"PING"}, // a failed AUTH keeps the earlier login
		{"RESET"}, {"PING"}, // RESET logs out
		{"AUTH", "default", "s3cret"}, {"GET", "x"},
	} {
		p.Same(t, c...)
	}
	p.Same(t, "RESET")
	sameHello(t, p, "HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "me")
	p.Same(t, "CLIENT", "GETNAME")
	sameHello(t, p, "HELLO")
	p.Same(t, "RESET")
	sameHello(t, p, "HELLO", "3", "AUTH", "default", "nope")
	p.Same(t, "GET", "nokey") // a refused HELLO 3 leaves the protocol as it was
	sameHello(t, p, "HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "me3")
	p.Same(t, "GET", "nokey")
	p.Same(t, "RESET") // back to RESP2
	p.Same(t, "AUTH", "s3cret")
	p.Same(t, "GET", "nokey")
	// QUIT needs no authentication.
	q, r := DialRaw(t, p.QP.Addr), DialRaw(t, p.RP.Addr)
	if a, b := q.Do(t, "QUIT"), r.Do(t, "QUIT"); a != b {
		t.Errorf("QUIT: %q vs %q", a, b)
	}
	// A command queued in MULTI before... MULTI itself needs auth; an
	// unauthenticated command inside a transaction aborts it.
	p.Same(t, "MULTI")
	p.Same(t, "AUTH", "s3cret")
	p.Same(t, "EXEC")
}

func TestAuthNoPassAndHello(t *testing.T) {
	t.Parallel()
	p := startAuthPair(t, "")
	for _, c := range [][]string{
		{"AUTH", "x"}, {"AUTH", "default", "anything"}, {"AUTH", "bob", "x"}, {"AUTH", "a", "b", "c"},
		{"HELLO", "1"}, {"HELLO", "4"}, {"HELLO", "x"}, {"HELLO", "-1"}, {"HELLO", "2", "AUTH", "a"},
		{"HELLO", "2", "SETNAME"}, {"HELLO", "2", "foo"}, {"HELLO", "2", "AUTH", "bob", "x"},
		{"HELLO", "2", "SETNAME", "bad name"}, {"CLIENT", "GETNAME"},
	} {
		p.Same(t, c...)
	}
	sameHello(t, p, "HELLO")
	sameHello(t, p, "HELLO", "2")
	sameHello(t, p, "hello", "2", "setname", "n1", "auth", "default", "x")
	p.Same(t, "CLIENT", "GETNAME")
	// HELLO 3 switches to RESP3 (the reply is a map), HELLO 2 back.
	sameHello(t, p, "HELLO", "3")
	p.Same(t, "GET", "nokey")
	sameHello(t, p, "HELLO")
	sameHello(t, p, "HELLO", "2")
	p.Same(t, "GET", "nokey")
}

// TestGoRedisAuth runs go-redis v9, which opens with HELLO 3, against
// qlessd with and without a password: commands, transactions and pub/sub.
func TestGoRedisAuth(t *testing.T) {
	t.Parallel()
	for _, pass := range []string{"", "pw"} {
		t.Run("pass="+pass, func(t *testing.T) {
			var args []string
			if pass != "" {
				args = []string{"--requirepass", pass}
			}
			q := StartQlessd(t, "", args...)
			ctx := context.Background()
			rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Password: pass, DB: 3, ClientName: "gr"})
			defer rdb.Close()
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
				t.Fatalf("get: %q %v", v, err)
			}
			if name, err := rdb.ClientGetName(ctx).Result(); err != nil || name != "gr" {
				t.Fatalf("client name: %q %v", name, err)
			}
			cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "a", "1", 0)
				p.Get(ctx, "a")
				return nil
			})
			if err != nil || len(cmds) != 2 || cmds[1].(*redis.StringCmd).Val() != "1" {
				t.Fatalf("tx: %v %v", cmds, err)
			}
			sub := rdb.Subscribe(ctx, "news")
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			if err := rdb.Publish(ctx, "news", "hi").Err(); err != nil {
				t.Fatal(err)
			}
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil || msg.Payload != "hi" || msg.Channel != "news" {
				t.Fatalf("message: %+v %v", msg, err)
			}
			// The key went to database 3, selected by the client.
			raw := DialRaw(t, q.Addr)
			if pass != "" {
				raw.Do(t, "AUTH", pass)
			}
			if got := raw.Do(t, "GET", "k"); got != "$-1\r\n" {
				t.Errorf("db 0 GET k = %q", got)
			}
			raw.Do(t, "SELECT", "3")
			if got := raw.Do(t, "GET", "k"); got != "$1\r\nv\r\n" {
				t.Errorf("db 3 GET k = %q", got)
			}
			// Asking for RESP2 outright goes through HELLO 2.
			resp2 := redis.NewClient(&redis.Options{Addr: q.Addr, Password: pass, Protocol: 2, DB: 3})
			defer resp2.Close()
			if v, err := resp2.Get(ctx, "a").Result(); err != nil || v != "1" {
				t.Fatalf("RESP2 client: %q %v", v, err)
			}
			if pass != "" {
				bad := redis.NewClient(&redis.Options{Addr: q.Addr, Password: "wrong"})
				defer bad.Close()
				if err := bad.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
					t.Fatalf("wrong password: %v", err)
				}
				none := redis.NewClient(&redis.Options{Addr: q.Addr})
				defer none.Close()
				if err := none.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
					t.Fatalf("no password: %v", err)
				}
			}
		})
	}
}

func TestProtectedMode(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(freePort(t))
	cmd := exec.Command(binary(t), "--port", port, "--bind", "0.0.0.0", "--dir", t.TempDir(), "--http-addr", "")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		t.Fatal("qlessd bound to 0.0.0.0 without a password and kept running")
	}
	if err == nil || !strings.Contains(string(out), "protected mode") {
		t.Fatalf("want a refusal, got %v:\n%s", err, out)
	}
	// Allowed with a password, or with protected mode off.
	q := StartQlessd(t, "", "--bind", "0.0.0.0", "--requirepass", "x")
	if got := DialRaw(t, q.Addr).Do(t, "PING"); got != "-NOAUTH Authentication required.\r\n" {
		t.Errorf("PING = %q", got)
	}
	q = StartQlessd(t, "", "--bind", "0.0.0.0", "--protected-mode", "no")
	if got := DialRaw(t, q.Addr).Do(t, "PING"); got != "+PONG\r\n" {
		t.Errorf("PING = %q", got)
	}
}
