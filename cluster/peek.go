package cluster

import (
	"bytes"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A follower serves a connection itself, rather than relaying it, when its
// first command is about the node: ROLE, INFO, RAFT, its configuration,
// its data file, its own slow log and latency, or SHUTDOWN (which would
// otherwise stop the leader). Monitoring tools (redis-cli ROLE, INFO
// replication, RAFT STATUS) then see each node; the connection is a
// read-only replica's from then on. The command is peeked
// at (MSG_PEEK), not read, since the event loop takes the socket itself.

// localFirst are the commands that keep a connection on the follower.
var localFirst = map[string]bool{
	"role": true, "info": true, "raft": true, "config": true, "shutdown": true, "save": true, "bgsave": true,
	"bgrewriteaof": true, "lastsave": true, "slowlog": true, "latency": true,
}

// peekTimeout bounds the wait for a new client's first command.
const peekTimeout = 10 * time.Second

var errNoCommand = errors.New("no command name yet")

// firstCommand returns the lowercase name of the first command c sent,
// without consuming it.
func firstCommand(c net.Conn) (string, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return "", errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return "", err
	}
	c.SetReadDeadline(time.Now().Add(peekTimeout))
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, 256)
	for attempt := 0; attempt < 200; attempt++ {
		var n int
		var perr error
		err := rc.Read(func(fd uintptr) bool {
			n, _, perr = syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK)
			return perr != syscall.EAGAIN
		})
		if err != nil {
			return "", err
		}
		if perr != nil || n == 0 {
			return "", errors.New("closed before its first command")
		}
		if name, err := commandName(buf[:n]); err == nil {
			return name, nil
		} else if n == len(buf) {
			return "", err
		}
		time.Sleep(time.Millisecond) // the rest of the command is on its way
	}
	return "", errNoCommand
}

// commandName reads the name of the command that starts b: a RESP array
// of bulk strings, or an inline command.
func commandName(b []byte) (string, error) {
	if len(b) == 0 {
		return "", errNoCommand
	}
	if b[0] != '*' {
		line, _, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return "", errNoCommand
		}
		f := strings.Fields(string(line))
		if len(f) == 0 {
			return "", nil
		}
		return strings.ToLower(f[0]), nil
	}
	_, rest, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || len(rest) == 0 || rest[0] != '$' {
		return "", errNoCommand
	}
	lenLine, rest, ok := bytes.Cut(rest[1:], []byte("\r\n"))
	if !ok {
		return "", errNoCommand
	}
	n, err := strconv.Atoi(string(lenLine))
	if err != nil || n < 0 || n > 64 || len(rest) < n {
		return "", errNoCommand
	}
	return strings.ToLower(string(rest[:n])), nil
}
