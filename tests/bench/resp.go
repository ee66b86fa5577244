package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// conn is one raw RESP2 connection: a benchmark client should spend as
// little CPU as it can, since it shares the machine's cores with the server
// it measures.
type conn struct {
	nc  net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	num []byte
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
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
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
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	return c.w.Flush()
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
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	r, err := c.readValue()
	if err == nil && r.kind == '-' {
		return r, replyError(r.str)
	}
	return r, err
}

func (c *conn) line() (string, error) {
	s, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(s) < 3 || s[len(s)-2] != '\r' {
		return "", errors.New("protocol error: bad line")
	}
	return s[:len(s)-2], nil
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
		r.str = body
	case ':':
		r.num, err = strconv.ParseInt(body, 10, 64)
	case '$':
		n, perr := strconv.Atoi(body)
		if perr != nil {
			return r, perr
		}
		if n < 0 {
			r.nil = true
			return r, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return r, err
		}
		r.str = string(buf[:n])
	case '*':
		n, perr := strconv.Atoi(body)
		if perr != nil {
			return r, perr
		}
		if n < 0 {
			r.nil = true
			return r, nil
		}
		r.arr = make([]reply, n)
		for i := range r.arr {
			if r.arr[i], err = c.readValue(); err != nil {
				return r, err
			}
		}
	default:
		return r, fmt.Errorf("protocol error: unexpected %q", s)
	}
	return r, err
}
