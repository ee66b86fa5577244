package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestACLFileDifferential: ACL SAVE writes, and ACL LOAD reads, the file
// Redis 7.0 does, with its errors; qlessd and redis-server share one
// aclfile, taking turns.
func TestACLFileDifferential(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "users.acl")
	writeACLFile(t, file, "user default on nopass ~* &* +@all\n")
	q, r := StartQlessd(t, "", "--aclfile", file), StartRedis(t, "--aclfile", file)
	p := &Pair{Q: DialRaw(t, q.Addr), R: DialRaw(t, r.Addr), QP: q, RP: r}
	sameAll(t, p, [][]string{
		{"CONFIG", "GET", "aclfile"},
		{"ACL", "SETUSER", "bob", "on", ">p", "~b*", "&c", "+get", "+set"},
		{"ACL", "SETUSER", "carol", "off", "nopass", "+@all", "-@dangerous", "%R~x"},
	})
	sameACLSave(t, p, file, normRules)
	for _, text := range []string{
		"user default on nopass ~* &* +@all\nuser a on >x +nosuch\nfoo bar\nuser default on\n",
		"user default on nopass ~* &* +@all\n\n# comment\n   user   c  on\n",
		"user x on #abc\nuser y %Q~x\n",
		"user c on >pw ~* +@read\n\n",
	} {
		writeACLFile(t, file, text)
		p.Same(t, "ACL", "LOAD")
		p.SameSorted(t, "ACL", "USERS")
	}
	os.Remove(file)
	p.Same(t, "ACL", "LOAD")
}

// TestACLFileKeepsUsersAcrossRestart: users outlive a restart through the
// aclfile only, as in Redis; a missing aclfile stops the start.
func TestACLFileKeepsUsersAcrossRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "users.acl")
	writeACLFile(t, file, "user default on nopass ~* &* +@all\n")
	q := StartQlessd(t, "", "--aclfile", file)
	admin := redis.NewClient(&redis.Options{Addr: q.Addr})
	for _, call := range [][]any{{"ACL", "SETUSER", "bob", "on", ">p", "~*", "+get"}, {"ACL", "SAVE"},
		{"ACL", "SETUSER", "unsaved", "on", ">p"}} {
		if err := admin.Do(ctx, call...).Err(); err != nil {
			t.Fatalf("%v: %v", call, err)
		}
	}
	admin.Close()
	q.Stop()
	q = StartQlessd(t, q.Dir, "--aclfile", file)
	bob := redis.NewClient(&redis.Options{Addr: q.Addr, Username: "bob", Password: "p"})
	defer bob.Close()
	if err := bob.Get(ctx, "x").Err(); err != redis.Nil {
		t.Errorf("GET as bob after restart: %v", err)
	}
	if err := bob.Set(ctx, "x", "y", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Errorf("SET as bob after restart: %v", err)
	}
	users := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer users.Close()
	if got := users.Do(ctx, "ACL", "USERS").String(); !strings.Contains(got, "bob") || strings.Contains(got, "unsaved") {
		t.Errorf("ACL USERS after restart: %s", got)
	}
	q.Stop()

	// Without the aclfile, only the default user.
	q = StartQlessd(t, q.Dir)
	c := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer c.Close()
	if got := c.Do(ctx, "ACL", "USERS").String(); strings.Contains(got, "bob") {
		t.Errorf("ACL USERS without the aclfile: %s", got)
	}
	q.Stop()

	// A missing aclfile stops the start with the reason.
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(tctx, binary(t), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(),
		"--http-addr", "", "--aclfile", file+".missing").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "opening file") {
		t.Errorf("start with a missing aclfile: %v\n%s", err, out)
	}
}

func writeACLFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// sameACLSave has each server of p write its users to file (the aclfile
// both were started with) by ACL SAVE, and compares what they wrote, line
// by line through norm.
func sameACLSave(t *testing.T, p *Pair, file string, norm func(string) string) {
	t.Helper()
	saved := map[string]string{}
	for name, raw := range map[string]*Raw{"qlessd": p.Q, "redis": p.R} {
		if got := raw.Do(t, "ACL", "SAVE"); got != "+OK\r\n" {
			t.Fatalf("%s ACL SAVE: %q", name, got)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			lines = append(lines, norm(l))
		}
		saved[name] = strings.Join(lines, "\n")
	}
	if saved["qlessd"] != saved["redis"] {
		t.Errorf("ACL SAVE wrote\n qlessd: %s\n redis:  %s", saved["qlessd"], saved["redis"])
	}
}
