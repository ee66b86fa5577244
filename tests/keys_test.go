package tests

import (
	"bufio"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestKeysBasics(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "a", "1"}, {"SET", "b", "2"}, {"DEL", "a", "a", "b", "c"}, {"DEL"}, {"UNLINK", "x"},
		{"SET", "a", "1"}, {"UNLINK", "a", "a"}, {"EXISTS", "a"}, {"EXISTS"}, {"SET", "a", "1"},
		{"EXISTS", "a", "a", "b"}, {"TYPE", "a"}, {"TYPE", "nokey"}, {"TYPE"}, {"TYPE", "a", "b"},
		{"DBSIZE"}, {"DBSIZE", "x"}, {"RANDOMKEY"}, {"RANDOMKEY", "x"},
		{"RENAME", "a", "b"}, {"GET", "b"}, {"EXISTS", "a"}, {"RENAME", "a", "b"}, {"RENAME", "b", "b"},
		{"RENAME", "nokey", "nokey"}, {"SET", "c", "3"}, {"RENAMENX", "b", "c"}, {"RENAMENX", "b", "d"},
		{"GET", "d"}, {"RENAMENX", "d", "d"}, {"RENAMENX", "nokey", "x"}, {"RENAME", "a"},
		{"SET", "t", "v", "EX", "100"}, {"RENAME", "t", "t2"}, {"TTL", "t2"}, {"TTL", "t"},
		{"SET", "over", "x"}, {"SET", "t3", "v", "EX", "50"}, {"RENAME", "over", "t3"}, {"TTL", "t3"},
		{"COPY", "d", "e"}, {"GET", "e"}, {"COPY", "d", "e"}, {"COPY", "d", "e", "REPLACE"},
		{"COPY", "d", "d"}, {"COPY", "nokey", "f"}, {"COPY", "d", "f", "DB"}, {"COPY", "d", "f", "DB", "x"},
		{"COPY", "d", "f", "DB", "99"}, {"COPY", "d", "f", "DB", "-1"}, {"COPY", "d", "f", "BOGUS"},
		{"COPY", "d", "d", "DB", "0"}, {"COPY", "d", "f", "DB", "1"}, {"COPY", "d", "f", "DB", "1"},
		{"COPY", "d", "f", "DB", "1", "REPLACE"}, {"SET", "tc", "v", "EX", "100"}, {"COPY", "tc", "tc2"}, {"TTL", "tc2"},
		{"SWAPDB", "0", "1"}, {"DBSIZE"}, {"GET", "f"}, {"SWAPDB", "0", "1"}, {"DBSIZE"}, {"SWAPDB", "0", "0"},
		{"SWAPDB", "x", "1"}, {"SWAPDB", "0", "y"}, {"SWAPDB", "0", "16"}, {"SWAPDB", "-1", "0"},
		{"SWAPDB", "0", "4294967296"}, {"SWAPDB", "0"},
		{"FLUSHDB", "SYNC"}, {"DBSIZE"}, {"SET", "a", "1"}, {"FLUSHDB", "ASYNC"}, {"DBSIZE"}, {"FLUSHDB", "x"},
		{"FLUSHDB", "SYNC", "ASYNC"}, {"RANDOMKEY"}, {"SET", "a", "1"}, {"RANDOMKEY"},
		{"SWAPDB", "0", "1"}, {"FLUSHALL"}, {"SWAPDB", "0", "1"}, {"DBSIZE"}, {"FLUSHALL", "ASYNC"},
		{"FLUSHALL", "sync"}, {"FLUSHALL", "x"},
		{"SET", "a", "1"}, {"TOUCH", "a", "a", "nokey"}, {"TOUCH"}, {"MOVE", "a", "1"}, {"EXISTS", "a"},
		{"MOVE", "a", "1"}, {"SET", "a", "2"}, {"MOVE", "a", "1"}, {"GET", "a"}, {"MOVE", "a", "0"},
		{"MOVE", "a", "x"}, {"MOVE", "a", "16"}, {"MOVE", "a", "-1"}, {"MOVE", "nokey", "0"}, {"MOVE", "nokey", "1"},
		{"SET", "t", "v", "EX", "100"}, {"MOVE", "t", "2"}, {"SWAPDB", "0", "2"}, {"TTL", "t"}, {"SWAPDB", "0", "1"},
		{"GET", "a"}, {"DBSIZE"}, {"MOVE"}, {"MOVE", "a"},
	})
}

func TestKeysExpireCommands(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "k", "v"}, {"TTL", "k"}, {"PTTL", "k"}, {"EXPIRETIME", "k"}, {"PEXPIRETIME", "k"},
		{"TTL", "nokey"}, {"PTTL", "nokey"}, {"EXPIRETIME", "nokey"}, {"PEXPIRETIME", "nokey"},
		{"EXPIRE", "nokey", "10"}, {"EXPIRE", "k", "100"}, {"TTL", "k"}, {"PERSIST", "k"}, {"PERSIST", "k"},
		{"PERSIST", "nokey"}, {"TTL", "k"}, {"PEXPIRE", "k", "100000"}, {"TTL", "k"},
		{"EXPIREAT", "k", "99999999999"}, {"EXPIRETIME", "k"}, {"PEXPIREAT", "k", "99999999999123"},
		{"PEXPIRETIME", "k"}, {"EXPIRETIME", "k"},
		{"EXPIRE", "k", "x"}, {"EXPIRE", "k", "1.5"}, {"EXPIRE", "k", ""}, {"EXPIRE", "k"},
		{"EXPIRE", "k", "9223372036854775807"}, {"EXPIRE", "k", "9223372036854775"},
		{"EXPIRE", "k", "-9223372036854775808"}, {"EXPIRE", "k", "-9223372036854775"},
		{"PEXPIRE", "k", "9223372036854775807"}, {"PEXPIRE", "k", "9223372036854000000"},
		{"EXPIREAT", "k", "9223372036854775807"}, {"EXPIREAT", "k", "9223372036854775"},
		{"PEXPIREAT", "k", "9223372036854775807"}, {"PEXPIRETIME", "k"},
		{"SET", "k", "v"},
		// NX / XX / GT / LT
		{"EXPIRE", "k", "100", "XX"}, {"EXPIRE", "k", "100", "GT"}, {"TTL", "k"}, {"EXPIRE", "k", "100", "LT"},
		{"TTL", "k"}, {"EXPIRE", "k", "200", "NX"}, {"TTL", "k"}, {"EXPIRE", "k", "200", "XX"}, {"TTL", "k"},
		{"EXPIRE", "k", "100", "GT"}, {"EXPIRE", "k", "300", "GT"}, {"TTL", "k"}, {"EXPIRE", "k", "400", "LT"},
		{"EXPIRE", "k", "50", "LT"}, {"TTL", "k"}, {"EXPIRE", "k", "50", "lt", "xx"}, {"EXPIRE", "k", "60", "gt", "XX"},
		{"TTL", "k"}, {"SET", "n", "v"}, {"EXPIRE", "n", "10", "NX"}, {"TTL", "n"},
		{"EXPIRE", "k", "10", "NX", "XX"}, {"EXPIRE", "k", "10", "NX", "GT"}, {"EXPIRE", "k", "10", "LT", "NX"},
		{"EXPIRE", "k", "10", "GT", "LT"}, {"EXPIRE", "k", "10", "BOGUS"}, {"EXPIRE", "k", "10", "NX", "BOGUS"},
		{"EXPIRE", "k", "x", "BOGUS"}, {"EXPIRE", "k", "x", "NX", "XX"}, {"EXPIRE", "nokey", "10", "GT", "LT"},
		{"PEXPIRE", "k", "10", "gt", "lt"}, {"EXPIREAT", "k", "10", "nx", "lt"}, {"PEXPIREAT", "k", "10", "ZZ"},
		{"EXPIRE", "k", "9223372036854775807", "NX", "XX"}, {"EXPIRE", "k", "10", "NX", "NX"},
		{"EXPIRE", "k", "0", "XX"}, {"EXISTS", "k"}, {"SET", "k", "v"}, {"EXPIRE", "k", "0", "XX"}, {"EXISTS", "k"},
		{"EXPIRE", "k", "-1", "NX"}, {"EXISTS", "k"}, {"SET", "k", "v", "EX", "100"}, {"EXPIRE", "k", "-1", "GT"},
		{"EXISTS", "k"}, {"EXPIRE", "k", "-1", "LT"}, {"EXISTS", "k"},
		// Zero and negative deadlines delete the key.
		{"SET", "k", "v"}, {"EXPIRE", "k", "0"}, {"EXISTS", "k"}, {"SET", "k", "v"}, {"PEXPIRE", "k", "-100"},
		{"EXISTS", "k"}, {"SET", "k", "v"}, {"EXPIREAT", "k", "1"}, {"GET", "k"}, {"SET", "k", "v"},
		{"PEXPIREAT", "k", "0"}, {"GET", "k"}, {"TTL"}, {"PERSIST"}, {"TTL", "a", "b"},
	})
}

// TestKeysExpiryHappens sets short deadlines and polls until both servers
// have removed the keys.
func TestKeysExpiryHappens(t *testing.T) {
	p := StartPair(t)
	sameAll(t, p, [][]string{
		{"SET", "a", "v", "PX", "150"}, {"SET", "b", "v"}, {"PEXPIRE", "b", "150"}, {"SETEX", "c", "1", "v"},
		{"SET", "d", "v"}, {"PEXPIREAT", "d", strconv.FormatInt(time.Now().Add(200*time.Millisecond).UnixMilli(), 10)},
		{"SET", "keep", "v"},
	})
	for _, srv := range []*Raw{p.Q, p.R} {
		deadline := time.Now().Add(waitTimeout)
		for {
			if srv.Do(t, "EXISTS", "a", "b", "c", "d") == ":0\r\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("keys did not expire")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	sameAll(t, p, [][]string{{"GET", "a"}, {"TTL", "b"}, {"DBSIZE"}, {"KEYS", "*"}, {"GET", "keep"}})
}

func TestKeysPatterns(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	keys := []string{"", "a", "b", "ab", "abc", "hello", "hallo", "hxllo", "hllo", "heeello", "h*llo", "h?llo",
		"h[llo", "h]llo", "h\\llo", "a-b", "a^b", "x\xe9y", "x\x90y", "user:1", "user:2", "user:10", "-", "]", "^",
		"a\x00b", "a.b", "A", "Z"}
	for _, k := range keys {
		p.Same(t, "SET", k, "v")
	}
	pats := []string{"*", "", "?", "??", "a*", "*b", "*b*", "h?llo", "h*llo", "h[ae]llo", "h[^e]llo", "h[a-b]llo",
		"h[b-a]llo", "h\\*llo", "h\\?llo", "h[\\]]llo", "h[[]llo", "h\\\\llo", "[abc", "[a-", "a[", "\\", "a\\",
		"[a-]", "[]", "[]]", "[^]]", "x[\x80-\xff]y", "x[a-\xff]y", "x?y", "user:?", "user:*", "user:[0-9]",
		"user:[0-9][0-9]", "[-]", "[\\-]", "[^a]", "[^]", "*[", "**", "***a", "a**", "?*?", "[A-z]", "[z-A]",
		"a?b", "a\x00b", "a[\x00]b", "[^-]", "h\\", "*\\*", "[\\"}
	for _, pat := range pats {
		p.SameSorted(t, "KEYS", pat)
		q := collectScan(t, p.Q, "MATCH", pat)
		r := collectScan(t, p.R, "MATCH", pat)
		if strings.Join(q, "\n") != strings.Join(r, "\n") {
			t.Errorf("SCAN MATCH %q: qlessd %q, redis %q", pat, q, r)
		}
	}
	sameAll(t, p, [][]string{{"KEYS"}, {"KEYS", "a", "b"}})
}

// collectScan runs a whole SCAN and returns the distinct keys, sorted.
func collectScan(t *testing.T, c *Raw, opts ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	cursor := "0"
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("SCAN does not end")
		}
		next, page := scanPage(t, c.Do(t, append([]string{"SCAN", cursor}, opts...)...))
		for _, k := range page {
			seen[k] = true
		}
		cursor = next
		if cursor == "0" {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scanPage parses a raw SCAN reply.
func scanPage(t *testing.T, raw string) (string, []string) {
	t.Helper()
	rd := bufio.NewReader(strings.NewReader(raw))
	line := func() string {
		s, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("bad SCAN reply %q", raw)
		}
		return strings.TrimSuffix(s, "\r\n")
	}
	bulk := func() string {
		n, err := strconv.Atoi(line()[1:])
		if err != nil {
			t.Fatalf("bad SCAN reply %q", raw)
		}
		b := make([]byte, n+2)
		if _, err := ioReadFull(rd, b); err != nil {
			t.Fatal(err)
		}
		return string(b[:n])
	}
	if line() != "*2" {
		t.Fatalf("bad SCAN reply %q", raw)
	}
	cursor := bulk()
	n, _ := strconv.Atoi(line()[1:])
	page := make([]string, n)
	for i := range page {
		page[i] = bulk()
	}
	return cursor, page
}

func TestKeysScanOptions(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for i := 0; i < 300; i++ {
		p.Same(t, "SET", "key:"+strconv.Itoa(i), "v")
	}
	sameAll(t, p, [][]string{
		{"SCAN"}, {"SCAN", "x"}, {"SCAN", " 0"}, {"SCAN", "0x"}, {"SCAN", "1.5"}, {"SCAN", "-"},
		{"SCAN", "99999999999999999999"}, {"SCAN", "0", "COUNT"}, {"SCAN", "0", "COUNT", "0"},
		{"SCAN", "0", "COUNT", "-1"}, {"SCAN", "0", "COUNT", "x"}, {"SCAN", "0", "MATCH"}, {"SCAN", "0", "TYPE"},
		{"SCAN", "0", "BOGUS", "x"}, {"SCAN", "x", "COUNT", "0"}, {"SCAN", "0", "COUNT", "0", "BOGUS"},
		{"SCAN", "0", "MATCH", "nomatch*", "COUNT", "10000"},
		{"SCAN", "0", "TYPE", "hash", "COUNT", "10000"}, {"SCAN", "0", "TYPE", "bogus", "COUNT", "10000"},
	})
	// Whole scans, with every option, return the same sets.
	for _, opts := range [][]string{nil, {"COUNT", "1"}, {"COUNT", "7"}, {"COUNT", "1000"}, {"MATCH", "key:1*"},
		{"MATCH", "key:1*", "COUNT", "3"}, {"TYPE", "string"}, {"TYPE", "STRING"}, {"TYPE", "list"},
		{"match", "*5", "type", "string", "count", "2"}} {
		q, r := collectScan(t, p.Q, opts...), collectScan(t, p.R, opts...)
		if strings.Join(q, ",") != strings.Join(r, ",") {
			t.Errorf("SCAN %q: qlessd %d keys, redis %d keys", opts, len(q), len(r))
		}
	}
	// Odd cursors never crash and still end.
	for _, c := range []string{"1", "-1", "+5", "", "18446744073709551615", "123456789"} {
		cur := c
		for i := 0; cur != "0"; i++ {
			if i > 1000 {
				t.Fatalf("scan from cursor %q does not end", c)
			}
			cur, _ = scanPage(t, p.Q.Do(t, "SCAN", cur, "COUNT", "50"))
		}
	}
}

// TestKeysScanUnderChange adds and deletes keys between SCAN calls: every
// key present for the whole scan must still be returned.
func TestKeysScanUnderChange(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	stable := map[string]bool{}
	for i := 0; i < 500; i++ {
		k := "s:" + strconv.Itoa(i*7919%1000)
		c.Do(t, "SET", k, "v")
		stable[k] = true
	}
	seen := map[string]bool{}
	cursor := "0"
	for round := 0; ; round++ {
		if round > 10000 {
			t.Fatal("SCAN does not end")
		}
		next, page := scanPage(t, c.Do(t, "SCAN", cursor, "COUNT", "13"))
		for _, k := range page {
			seen[k] = true
		}
		// Churn: new keys before and after the cursor, and deletions of
		// keys that are not part of the stable set.
		c.Do(t, "SET", "a:"+strconv.Itoa(round), "v")
		c.Do(t, "SET", "s:"+strconv.Itoa(round)+"x", "v")
		c.Do(t, "SET", "z:"+strconv.Itoa(round), "v")
		if round > 2 {
			c.Do(t, "DEL", "s:"+strconv.Itoa(round-2)+"x", "a:"+strconv.Itoa(round-1))
		}
		if next == "0" {
			break
		}
		cursor = next
	}
	for k := range stable {
		if !seen[k] {
			t.Errorf("SCAN missed %q", k)
		}
	}
}

// TestKeysOnCollections moves collections around with the key commands and
// reads them back, for every collection type qlessd has commands for.
func TestKeysOnCollections(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	kinds := []struct {
		make []string
		read []string // {cmd, key, args...}; the key is replaced
	}{
		{[]string{"RPUSH", "c", "a", "b", "c"}, []string{"LRANGE", "", "0", "-1"}},
		{[]string{"SADD", "c", "a", "b", "c"}, []string{"SMEMBERS", ""}},
		{[]string{"HSET", "c", "f1", "v1", "f2", "v2"}, []string{"HGETALL", ""}},
		{[]string{"ZADD", "c", "1", "a", "2", "b"}, []string{"ZRANGE", "", "0", "-1", "WITHSCORES"}},
	}
	tried := 0
	for _, k := range kinds {
		p.Q.Do(t, "FLUSHALL")
		if strings.HasPrefix(p.Q.Do(t, k.make...), "-ERR unknown command") {
			continue
		}
		tried++
		p.Q.Do(t, "FLUSHALL")
		p.R.Do(t, "FLUSHALL")
		read := func(key string) {
			args := append([]string{k.read[0], key}, k.read[2:]...)
			p.SameSorted(t, args...)
		}
		p.Same(t, k.make...)
		sameAll(t, p, [][]string{{"TYPE", "c"}, {"EXPIRE", "c", "100"}, {"RENAME", "c", "d"}, {"TTL", "d"},
			{"EXISTS", "c"}, {"COPY", "d", "e"}, {"TTL", "e"}, {"COPY", "d", "e"}, {"SET", "s", "x"},
			{"COPY", "s", "e", "REPLACE"}, {"TYPE", "e"}, {"COPY", "d", "e", "REPLACE"}, {"TYPE", "e"},
			{"RENAMENX", "e", "d"}, {"RENAME", "s", "e"}, {"TYPE", "e"}, {"COPY", "d", "e", "REPLACE"},
			{"MOVE", "e", "3"}, {"EXISTS", "e"}, {"SWAPDB", "0", "3"}, {"TYPE", "e"}, {"TTL", "e"},
			{"SWAPDB", "0", "3"}, {"PERSIST", "d"}, {"TTL", "d"}})
		read("d")
		read("e")
		q, r := collectScan(t, p.Q, "TYPE", strings.Trim(p.R.Do(t, "TYPE", "d"), "+\r\n")), collectScan(t, p.R, "TYPE", strings.Trim(p.R.Do(t, "TYPE", "d"), "+\r\n"))
		if strings.Join(q, ",") != strings.Join(r, ",") {
			t.Errorf("SCAN TYPE: qlessd %q, redis %q", q, r)
		}
		sameAll(t, p, [][]string{{"DEL", "d"}, {"EXISTS", "d"}, {"DBSIZE"}, {"FLUSHALL"}, {"DBSIZE"}})
	}
	t.Logf("key commands checked on %d collection types", tried)
}

// TestKeysScanAcrossRestart continues a SCAN on a restarted server, which
// no longer knows the cursor: it must still return every key.
func TestKeysScanAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	c := DialRaw(t, q.Addr)
	want := map[string]bool{}
	for i := 0; i < 400; i++ {
		k := "user:" + strconv.Itoa(i)
		c.Do(t, "SET", k, "v")
		want[k] = true
	}
	seen := map[string]bool{}
	cursor := "0"
	for i := 0; i < 5; i++ {
		var page []string
		cursor, page = scanPage(t, c.Do(t, "SCAN", cursor, "COUNT", "20"))
		for _, k := range page {
			seen[k] = true
		}
	}
	q.Stop()
	q2 := StartQlessd(t, dir)
	c2 := DialRaw(t, q2.Addr)
	for i := 0; cursor != "0"; i++ {
		if i > 1000 {
			t.Fatal("SCAN does not end")
		}
		var page []string
		cursor, page = scanPage(t, c2.Do(t, "SCAN", cursor, "COUNT", "20"))
		for _, k := range page {
			seen[k] = true
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("SCAN missed %q", k)
		}
	}
}

// TestKeysExpiryAcrossRestart checks deadlines survive a restart and keys
// whose deadline passed while the server was down are gone.
func TestKeysExpiryAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	c := DialRaw(t, q.Addr)
	for _, cmd := range [][]string{{"SET", "long", "v", "EX", "1000"}, {"SET", "short", "v", "PX", "300"},
		{"SET", "kept", "v", "EX", "1000"}, {"PERSIST", "kept"}, {"INCRBYFLOAT", "f", "0.1"}, {"EXPIRE", "f", "1000"}} {
		c.Do(t, cmd...)
	}
	q.Stop()
	time.Sleep(400 * time.Millisecond)
	q2 := StartQlessd(t, dir)
	c2 := DialRaw(t, q2.Addr)
	for cmd, want := range map[string]string{"EXISTS short": ":0\r\n", "TTL kept": ":-1\r\n",
		"GET f": "$3\r\n0.1\r\n", "DBSIZE": ":3\r\n"} {
		if got := c2.Do(t, strings.Fields(cmd)...); got != want {
			t.Errorf("%s after restart = %q, want %q", cmd, got, want)
		}
	}
	// The deadlines are the ones set before the restart, so less than a
	// minute has gone from them.
	for _, k := range []string{"long", "f"} {
		got := c2.Do(t, "TTL", k)
		if n, err := strconv.Atoi(strings.TrimSpace(got[1:])); err != nil || n < 940 || n > 1000 {
			t.Errorf("TTL %s after restart = %q", k, got)
		}
	}
}
