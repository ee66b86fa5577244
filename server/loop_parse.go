package server

import (
	"bytes"
	"errors"
	"strings"

	"github.com/qlessd/qlessd/commands"
	"github.com/tidwall/redcon"
)

// loopCmd is one command the loop read: its arguments point into the
// connection's input buffer, which stays put until the turn ends.
type loopCmd struct {
	args  [][]byte
	cmd   *commands.Cmd // the table's entry for args[0], nil when unknown
	start int           // where the command begins in the input
	fail  []byte        // a protocol error's reply, in place of a command
	// script: a script that may run past lua-time-limit (any but a
	// library's), which the loop runs with a stand-in ready (loop_busy.go)
	script bool
}

var errIncomplete = errors.New("incomplete command")

// parseCommand reads the command at the start of b without copying: RESP
// arrays of bulk strings, or an inline command line. It returns how many
// bytes the command took, 0 when b holds only part of it. Malformed input
// gets the error redcon gives for it, so both ways of serving reply alike.
func parseCommand(b []byte, args [][]byte) (n int, out [][]byte, err error) {
	if len(b) == 0 {
		return 0, args, errIncomplete
	}
	if b[0] != '*' {
		return parseInline(b, args)
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return 0, args, errIncomplete
	}
	count, ok := respInt(b[1:nl])
	if !ok || count <= 0 {
		return 0, args, redconError(b)
	}
	pos := nl + 1
	for range count {
		if pos >= len(b) {
			return 0, args, errIncomplete
		}
		if b[pos] != '$' {
			return 0, args, redconError(b)
		}
		nl := bytes.IndexByte(b[pos:], '\n')
		if nl < 0 {
			return 0, args, errIncomplete
		}
		nl += pos
		size, ok := respInt(b[pos+1 : nl])
		if !ok || size < 0 {
			return 0, args, redconError(b)
		}
		if nl+size+2 >= len(b) {
			return 0, args, errIncomplete
		}
		if b[nl+size+1] != '\r' || b[nl+size+2] != '\n' {
			return 0, args, redconError(b)
		}
		args = append(args, b[nl+1:nl+1+size:nl+1+size])
		pos = nl + size + 3
	}
	return pos, args, nil
}

// respInt reads the number of a "*" or "$" line, its "\r" still on, as
// redcon does: optional minus sign, digits, nothing else.
func respInt(line []byte) (int, bool) {
	if len(line) == 0 || line[len(line)-1] != '\r' {
		return 0, false
	}
	line = line[:len(line)-1]
	neg := len(line) > 0 && line[0] == '-'
	if neg {
		line = line[1:]
	}
	n := 0
	for _, c := range line {
		if c < '0' || c > '9' || n > (1<<53) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseInline reads a telnet-style command line, as redcon parses it.
func parseInline(b []byte, args [][]byte) (int, [][]byte, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return 0, args, errIncomplete
	}
	cmd, err := redcon.Parse(b[:nl+1])
	switch {
	case err == nil:
		return nl + 1, append(args, cmd.Args...), nil
	case isProtocolError(err):
		return 0, args, err
	}
	return nl + 1, args, nil // a blank line: no command
}

// isProtocolError tells redcon's errors for malformed input, which the
// client hears before the connection closes, from those of the socket.
func isProtocolError(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "Protocol error")
}

// redconError is the protocol error redcon reports for b, whose first
// command is malformed.
func redconError(b []byte) error {
	if _, err := redcon.Parse(b); isProtocolError(err) {
		return err
	}
	return errors.New("Protocol error: invalid bulk length")
}
