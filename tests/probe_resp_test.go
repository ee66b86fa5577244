//go:build probes

package tests

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// probeConn is a RESP2 client that reports a dropped connection as an
// error instead of failing the test: a probe kills the server under it and
// must tell an acknowledged command from one whose reply never came.
// go-redis would retry a command on a new connection, which hides that.
type probeConn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

// probeErr is an error reply (-ERR ..., -MISCONF ...), without its dash.
type probeErr string

func dialProbe(addr string) (*probeConn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &probeConn{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

func (c *probeConn) Close() { c.c.Close() }

// do sends one command and reads its reply: string (simple or bulk), int64,
// []any, nil (null) or probeErr.
func (c *probeConn) do(args ...string) (any, error) {
	replies, err := c.pipeline([][]string{args})
	if err != nil {
		return nil, err
	}
	return replies[0], nil
}

// pipeline sends every command, then reads their replies.
func (c *probeConn) pipeline(cmds [][]string) ([]any, error) {
	// Generous: a loaded 2-core machine, a server that fsyncs each batch.
	c.c.SetDeadline(time.Now().Add(waitTimeout))
	for _, args := range cmds {
		fmt.Fprintf(c.w, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	replies := make([]any, len(cmds))
	for i := range cmds {
		v, err := c.read()
		if err != nil {
			return nil, err
		}
		replies[i] = v
	}
	return replies, nil
}

func (c *probeConn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short reply line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return probeErr(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		return c.readBulk(body)
	case '*':
		return c.readArray(body)
	}
	return nil, fmt.Errorf("unexpected reply line %q", line)
}

func (c *probeConn) readBulk(n string) (any, error) {
	size, err := strconv.Atoi(n)
	if err != nil || size < 0 {
		return nil, err
	}
	b := make([]byte, size+2)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return nil, err
	}
	return string(b[:size]), nil
}

func (c *probeConn) readArray(n string) (any, error) {
	size, err := strconv.Atoi(n)
	if err != nil || size < 0 {
		return nil, err
	}
	items := make([]any, size)
	for i := range items {
		if items[i], err = c.read(); err != nil {
			return nil, err
		}
	}
	return items, nil
}
