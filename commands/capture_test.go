package commands_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/resp"
)

// capture runs rows against a real Redis at addr (see runRows) and prints
// them to stdout as Go rows with Redis's replies. A row whose recorded want is a
// pattern keeps it while Redis's reply still matches. It flushes that
// Redis first: point it at a scratch server only.
func capture(t *testing.T, h *harness, addr string, rows []row) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // a row that blocks in Redis fails, not hangs
	rd := bufio.NewReader(conn)
	do := func(line string) resp.Value {
		args, _ := resp.SplitArgs([]byte(line), nil)
		fmt.Fprintf(conn, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(conn, "$%d\r\n%s\r\n", len(a), a)
		}
		v, err := readReply(rd)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return v
	}
	do("FLUSHALL")
	do("SELECT 0")
	out := os.Stdout
	for _, r := range rows {
		want := form(r.want, do(r.line))
		got := form(r.want, h.Line(r.line))
		if strings.HasPrefix(r.want, "~") && replyMatches(r.want, want) {
			want = r.want
		}
		mark := ""
		if !replyMatches(want, got) {
			mark = " // DIFFERS: qlessd " + got
		}
		fmt.Fprintf(out, "\t{%s, %s},%s\n", goString(r.line), goString(want), mark)
	}
}

// goString quotes s as a raw string when that reads better.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r\n") && strings.Contains(s, `"`) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// readReply reads one RESP2 reply.
func readReply(rd *bufio.Reader) (resp.Value, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return resp.Value{}, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return resp.Value{}, fmt.Errorf("empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return resp.Value{Kind: resp.Status, Str: body}, nil
	case '-':
		return resp.Value{Kind: resp.Error, Str: body}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		return resp.Value{Kind: resp.Int, Int: n}, err
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return resp.Value{Kind: resp.Null}, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return resp.Value{}, err
		}
		return resp.Value{Kind: resp.Bulk, Str: string(buf[:n])}, nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return resp.Value{Kind: resp.NullArray}, err
		}
		v := resp.Value{Kind: resp.Array, Array: make([]resp.Value, n)}
		for i := range v.Array {
			if v.Array[i], err = readReply(rd); err != nil {
				return v, err
			}
		}
		return v, nil
	}
	return resp.Value{}, fmt.Errorf("unknown reply %q", line)
}
