package server

import (
	"fmt"
	"testing"
)

// A command named POST or Host:, in any case, inline or multibulk, ends
// the reading: the commands before it are read, nothing after it. Names
// that only look alike are commands like any other.
func TestCrossProtocolStopsReading(t *testing.T) {
	attack := errCrossProtocol.Error()
	for _, c := range []struct {
		in   string
		cmds []string
		end  string
	}{
		{"POST / HTTP/1.1\r\nHost: x\r\n\r\nSET k v\r\n", nil, attack},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nSET k v\r\n", []string{`["GET" "/" "HTTP/1.1"]`}, attack},
		{"PING\r\npost\r\nPING\r\n", []string{`["PING"]`}, attack},
		{"PING\r\nhOsT: x\r\nPING\r\n", []string{`["PING"]`}, attack},
		{"*1\r\n$4\r\nPiNg\r\n*2\r\n$4\r\nPoSt\r\n$1\r\n/\r\n*1\r\n$4\r\nPING\r\n", []string{`["PiNg"]`}, attack},
		{"*1\r\n$5\r\nHOST:\r\n", nil, attack},
		{"POSTS\r\nHOST x\r\nPOS\r\nHOST:X\r\nhost;\r\n", []string{`["POSTS"]`, `["HOST" "x"]`, `["POS"]`, `["HOST:X"]`, `["host;"]`}, ""},
		{"ECHO POST\r\nECHO Host:\r\n", []string{`["ECHO" "POST"]`, `["ECHO" "Host:"]`}, ""},
	} {
		cmds, end := readAll([]byte(c.in), defaultLimits)
		if fmt.Sprint(cmds) != fmt.Sprint(c.cmds) || end != c.end {
			t.Errorf("%q:\n got %v, end %q\nwant %v, end %q", c.in, cmds, end, c.cmds, c.end)
		}
	}
}
