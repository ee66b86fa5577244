package tests

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// respValue is one parsed RESP2 reply.
type respValue struct {
	Kind  byte // '+', '-', ':', '$', '*'; '$' with Nil for null bulk, '*' with Nil for null array
	Str   string
	Int   int64
	Nil   bool
	Elems []respValue
}

// respConn is a connection that parses replies, for the conformance replay.
type respConn struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialResp(t testing.TB, addr string) *respConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &respConn{c: c, rd: bufio.NewReaderSize(c, 64<<10)}
}

func (r *respConn) send(args ...string) error {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	r.c.SetWriteDeadline(time.Now().Add(waitTimeout))
	_, err := r.c.Write([]byte(b.String()))
	return err
}

func (r *respConn) read() (respValue, error) {
	r.c.SetReadDeadline(time.Now().Add(waitTimeout))
	return parseResp(r.rd)
}

func (r *respConn) do(args ...string) (respValue, error) {
	if err := r.send(args...); err != nil {
		return respValue{}, err
	}
	return r.read()
}

func parseResp(rd *bufio.Reader) (respValue, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return respValue{}, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return respValue{}, fmt.Errorf("bad RESP line %q", line)
	}
	body := line[1 : len(line)-2]
	v := respValue{Kind: line[0]}
	switch line[0] {
	case '+', '-':
		v.Str = body
	case ':':
		v.Int, err = strconv.ParseInt(body, 10, 64)
	case '$':
		n, perr := strconv.Atoi(body)
		if perr != nil {
			return v, perr
		}
		if n < 0 {
			v.Nil = true
			return v, nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(rd, buf); err != nil {
			return v, err
		}
		v.Str = string(buf[:n])
	case '*':
		n, perr := strconv.Atoi(body)
		if perr != nil {
			return v, perr
		}
		if n < 0 {
			v.Nil = true
			return v, nil
		}
		v.Elems = make([]respValue, n)
		for i := range v.Elems {
			if v.Elems[i], err = parseResp(rd); err != nil {
				return v, err
			}
		}
	default:
		return v, fmt.Errorf("unexpected RESP type %q", line)
	}
	return v, err
}

// String renders a reply for failure messages.
func (v respValue) String() string {
	switch v.Kind {
	case '+':
		return "+" + v.Str
	case '-':
		return "(error) " + v.Str
	case ':':
		return "(integer) " + strconv.FormatInt(v.Int, 10)
	case '$':
		if v.Nil {
			return "(nil)"
		}
		return strconv.Quote(v.Str)
	case '*':
		if v.Nil {
			return "(nil array)"
		}
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}
