package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"
)

// conn is one raw RESP2 connection: a benchmark client should spend as
// little CPU and make as little garbage as it can, since it shares the
// machine's cores with the server it measures, and each of its own garbage
// collections stalls every client at once (a stop-the-world phase waits for
// any client thread the kernel has descheduled), which reads as server
// latency.
type conn struct {
	nc    net.Conn
	r     *bufio.Reader
	w     *bufio.Writer
	num   [20]byte
	rearm time.Time // when the I/O deadline is next pushed out
}

// reply is a decoded RESP2 reply; kind is its type byte ('+', '-', ':',
// '$', '*'), nil marks $-1 and *-1.
type reply struct {
	kind byte
	str  string
	num  int64
	arr  []reply
	nil  bool
}

// replyError is an error reply from the server.
type replyError string

func (e replyError) Error() string { return string(e) }

// ioTimeout bounds every read and write so a stalled server ends a cell with
// an error instead of hanging the whole run.
const ioTimeout = 60 * time.Second

func dial(addr string) (*conn, error) {
	nc, err := dialTLS(addr)
	if nc == nil && err == nil {
		nc, err = net.DialTimeout("tcp", addr, 5*time.Second)
	}
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10), w: bufio.NewWriterSize(nc, 64<<10)}, nil
}

func (c *conn) close() { c.nc.Close() }

// send buffers one command; flush sends what is buffered.
func (c *conn) send(args ...string) {
	c.w.WriteByte('*')
	c.w.Write(strconv.AppendInt(c.num[:0], int64(len(args)), 10))
	c.w.WriteString("\r\n")
	for _, a := range args {
		c.w.WriteByte('$')
		c.w.Write(strconv.AppendInt(c.num[:0], int64(len(a)), 10))
		c.w.WriteString("\r\n")
		c.w.WriteString(a)
		c.w.WriteString("\r\n")
	}
}

func (c *conn) flush() error {
	c.arm()
	return c.w.Flush()
}

// arm keeps the connection's deadline at least three quarters of ioTimeout
// away. Setting it on every call instead costs a runtime timer update per
// read and per write.
func (c *conn) arm() {
	now := time.Now()
	if now.After(c.rearm) {
		c.nc.SetDeadline(now.Add(ioTimeout))
		c.rearm = now.Add(ioTimeout / 4)
	}
}

// do sends one command and reads its reply; an error reply comes back as a
// replyError.
func (c *conn) do(args ...string) (reply, error) {
	c.send(args...)
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	return c.read()
}

// read reads one reply; an error reply is returned as a replyError too.
func (c *conn) read() (reply, error) {
	c.arm()
	r, err := c.readValue()
	if err == nil && r.kind == '-' {
		return r, replyError(r.str)
	}
	return r, err
}

// line reads one reply line without its CRLF; the bytes are only valid
// until the next read.
func (c *conn) line() ([]byte, error) {
	b, err := c.r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(b) < 3 || b[len(b)-2] != '\r' {
		return nil, errors.New("protocol error: bad line")
	}
	return b[:len(b)-2], nil
}

// length parses a bulk or array length, or an integer reply.
func length(b []byte) (int64, error) {
	digits := b
	if len(b) > 0 && b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("protocol error: bad number %q", b)
	}
	var n int64
	for _, d := range digits {
		if d < '0' || d > '9' || n > (math.MaxInt64-int64(d-'0'))/10 {
			return 0, fmt.Errorf("protocol error: bad number %q", b)
		}
		n = n*10 + int64(d-'0')
	}
	if len(digits) < len(b) {
		n = -n
	}
	return n, nil
}

func (c *conn) readValue() (reply, error) {
	s, err := c.line()
	if err != nil {
		return reply{}, err
	}
	r := reply{kind: s[0]}
	body := s[1:]
	switch r.kind {
	case '+', '-':
		r.str = string(body)
		return r, nil
	case ':':
		r.num, err = length(body)
		return r, err
	case '$', '*':
	default:
		return r, fmt.Errorf("protocol error: unexpected %q", s)
	}
	n, err := length(body)
	if err != nil {
		return r, err
	}
	if n < 0 {
		r.nil = true
		return r, nil
	}
	if r.kind == '*' {
		r.arr = make([]reply, n)
		for i := range r.arr {
			if r.arr[i], err = c.readValue(); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	// A bulk that fits the read buffer is copied out once.
	if p, err := c.r.Peek(int(n) + 2); err == nil {
		r.str = string(p[:n])
		_, err = c.r.Discard(int(n) + 2)
		return r, err
	} else if err != bufio.ErrBufferFull {
		return r, err
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		return r, err
	}
	r.str = string(buf[:n])
	return r, nil
}
