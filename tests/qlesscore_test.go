//go:build qlesscore

// Opt-in: go test -tags qlesscore ./tests -run TestQlessCore
//
// Builds qless-core's qless.lua from a local git mirror (QLESS_CORE_GIT,
// default /work/.mirror/seomoz+qless-core/repo) the way its Makefile does,
// runs it unmodified on qlessd and, with table.extend made local (Redis 7.0
// refuses to let scripts add it), on redis-server, and compares every reply.
// JSON payloads are compared as parsed values because cjson writes object
// keys in Lua's table order, which differs between the two interpreters.
// It needs the hash, set, sorted-set and list commands, PUBLISH and the
// cjson module in the table.
package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func qlessCoreScript(t *testing.T) string {
	dir := os.Getenv("QLESS_CORE_GIT")
	if dir == "" {
		dir = "/work/.mirror/seomoz+qless-core/repo"
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	var b strings.Builder
	b.WriteString("-- Current SHA: " + strings.TrimSpace(git("rev-parse", "HEAD")) + "\n-- This is a generated file\n")
	comment := regexp.MustCompile(`^[[:space:]]*--[^\[]`)
	for _, f := range []string{"base", "config", "job", "queue", "recurring", "worker", "api"} {
		for _, line := range strings.SplitAfter(git("show", "HEAD:"+f+".lua"), "\n") {
			if comment.MatchString(line) || strings.TrimRight(line, "\n") == "--" {
				continue
			}
			b.WriteString(line)
		}
	}
	return b.String()
}

var jsonBulk = regexp.MustCompile(`\$(\d+)\r\n`)

// canonicalJSON rewrites bulk strings holding JSON in a canonical form.
func canonicalJSON(raw string) string {
	var out strings.Builder
	for i := 0; i < len(raw); {
		loc := jsonBulk.FindStringSubmatchIndex(raw[i:])
		if loc == nil || loc[0] != 0 {
			j := strings.Index(raw[i:], "\r\n")
			if j < 0 {
				out.WriteString(raw[i:])
				break
			}
			out.WriteString(raw[i : i+j+2])
			i += j + 2
			continue
		}
		var n int
		fmt.Sscan(raw[i+loc[2]:i+loc[3]], &n)
		body := raw[i+loc[1] : i+loc[1]+n]
		var v any
		if json.Unmarshal([]byte(body), &v) == nil {
			b, _ := json.Marshal(v)
			body = string(b)
		}
		out.WriteString("$" + body + "\r\n")
		i += loc[1] + n + 2
	}
	return out.String()
}

func TestQlessCore(t *testing.T) {
	t.Parallel()
	stock := qlessCoreScript(t)
	r7 := strings.Replace(stock, "function table.extend(self, other)", "local function table_extend(self, other)", 1)
	r7 = strings.ReplaceAll(r7, "table.extend(", "table_extend(")
	p := StartPair(t)
	load := func(r *Raw, body string) string {
		s := r.Do(t, "SCRIPT", "LOAD", body)
		return strings.TrimSpace(s[strings.Index(s, "\n")+1:])
	}
	qsha, rsha := load(p.Q, stock), load(p.R, r7)
	call := func(args ...string) {
		t.Helper()
		q := strings.ReplaceAll(p.Q.Do(t, append([]string{"EVALSHA", qsha, "0"}, args...)...), qsha, "SHA")
		r := strings.ReplaceAll(p.R.Do(t, append([]string{"EVALSHA", rsha, "0"}, args...)...), rsha, "SHA")
		if canonicalJSON(q) != canonicalJSON(r) {
			t.Errorf("%q\n  qlessd: %q\n  redis:  %q", args, q, r)
		}
	}
	now := 1700000000
	ts := func() string { now += 7; return fmt.Sprint(now) }
	for i := 0; i < 12; i++ {
		q := []string{"emails", "reports"}[i%2]
		call("put", ts(), "me", q, fmt.Sprintf("jid-%02d", i), "Klass", fmt.Sprintf(`{"n":%d}`, i), "0", "priority", fmt.Sprint(i%3), "tags", `["t1","t2"]`, "retries", "2")
	}
	call("put", ts(), "me", "emails", "jid-delay", "Klass", `{}`, "30")
	call("put", ts(), "me", "emails", "jid-x", "Klass", `not json`, "0")
	call("put", ts(), "me", "emails", "jid-y", "Klass", `{}`, "soon")
	// depends that decode to no table: Lua's error names qless.lua's local
	for _, dep := range []string{"1", "null", "true"} {
		call("put", ts(), "me", "emails", "jid-z", "Klass", `{}`, "0", "depends", dep)
	}
	call("queues", ts())
	call("queues", ts(), "emails")
	call("peek", ts(), "emails", "3")
	call("pop", ts(), "emails", "worker-a", "4")
	call("pop", ts(), "reports", "worker-b", "2")
	call("heartbeat", ts(), "jid-00", "worker-a", `{"beat":1}`)
	call("heartbeat", ts(), "jid-00", "worker-b")
	call("complete", ts(), "jid-00", "worker-a", "emails", `{"done":true}`)
	call("complete", ts(), "jid-00", "worker-a", "emails", `{}`)
	call("complete", ts(), "jid-02", "worker-a", "emails", `{}`, "next", "reports")
	call("fail", ts(), "jid-04", "worker-a", "boom-group", "it broke", `{}`)
	call("failed", ts())
	call("failed", ts(), "boom-group", "0", "10")
	call("retry", ts(), "jid-06", "emails", "worker-a", "0", "grp", "msg")
	call("jobs", ts(), "complete")
	call("jobs", ts(), "running", "emails")
	call("jobs", ts(), "stalled", "emails")
	call("workers", ts())
	call("workers", ts(), "worker-a")
	call("tag", ts(), "get", "t1", "0", "10")
	call("tag", ts(), "add", "jid-01", "t3")
	call("tag", ts(), "top", "0", "10")
	call("track", ts(), "track", "jid-01")
	call("track", ts())
	call("stats", ts(), "emails", fmt.Sprint(now))
	call("priority", ts(), "jid-03", "5")
	call("config.set", ts(), "heartbeat", "120")
	call("config.get", ts(), "heartbeat")
	call("config.get", ts())
	call("pause", ts(), "emails")
	call("pop", ts(), "emails", "worker-c", "2")
	call("unpause", ts(), "emails")
	call("pop", ts(), "emails", "worker-c", "2")
	call("recur", ts(), "emails", "rjid", "Klass", `{}`, "interval", "60", "0")
	call("recur.get", ts(), "rjid")
	call("depends", ts(), "jid-03", "on", "jid-05")
	call("cancel", ts(), "jid-05")
	call("timeout", ts(), "jid-01")
	call("length", ts(), "emails")
	call("worker.deregister", ts(), "worker-a")
	for i := 0; i < 30; i++ {
		now += 20
		call("pop", ts(), "emails", "worker-z", "2")
		call("pop", ts(), "reports", "worker-y", "1")
		call("heartbeat", ts(), "jid-01", "worker-y")
		call("jobs", ts(), "stalled", "emails")
		call("queues", ts())
	}
	call("put", ts(), "me", "emails", "jid-dep", "Klass", `{}`, "0", "depends", `["jid-01"]`)
	call("complete", ts(), "jid-01", "worker-y", "reports", `{}`)
	call("put", ts(), "me", "emails", "jid-log", "Klass", `{}`, "0")
	call("log", ts(), "jid-log", "something happened", `{"k":1}`)
	call("track", ts(), "untrack", "jid-01")
	call("unfail", ts(), "emails", "boom-group", "5")
	call("requeue", ts(), "me", "reports", "jid-log", "Klass", `{"r":1}`, "0")
	call("jobs", ts(), "failed")
	call("jobs", ts(), "depends", "emails")
	call("jobs", ts(), "scheduled", "emails")
	call("jobs", ts(), "recurring", "emails")
	call("jobs", ts(), "bogus", "emails")
	call("stats", ts(), "emails", fmt.Sprint(now))
	call("recur.update", ts(), "rjid", "priority", "3")
	call("recur.tag", ts(), "rjid", "rt")
	call("unrecur", ts(), "rjid")
	call("queue.forget", ts(), "emails")
	call("unknowncmd", ts())
	call("put")
}
