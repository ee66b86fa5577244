package server

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tidwall/redcon"
)

// The loop's parser reads what redcon reads, and refuses what redcon
// refuses with the same words.
func TestParseCommandMatchesRedcon(t *testing.T) {
	good := []string{
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n",
		"*2\r\n$3\r\nGET\r\n$4\r\na\r\nb\r\n", // CR LF inside an argument
		"PING\r\n",
		"set k \"a b\"\n",
		"*1\r\n$-0\r\n\r\n",
	}
	for _, in := range good {
		want, err := redcon.Parse([]byte(in))
		if err != nil {
			t.Fatalf("redcon refuses %q: %v", in, err)
		}
		n, args, err := parseCommand([]byte(in), nil)
		if err != nil || n != len(in) || fmt.Sprintf("%q", args) != fmt.Sprintf("%q", want.Args) {
			t.Errorf("%q: took %d, args %q, err %v; want %d, %q", in, n, args, err, len(in), want.Args)
		}
		for cut := 0; cut < len(in); cut++ {
			if n, _, err := parseCommand([]byte(in[:cut]), nil); err != errIncomplete {
				t.Errorf("%q cut at %d: took %d, err %v; want incomplete", in, cut, n, err)
			}
		}
	}
	bad := []string{
		"*0\r\n", "*-1\r\n", "*x\r\n", "*1\n", "*1\r\n+OK\r\n", "*1\r\n$x\r\n", "*1\r\n$-2\r\n",
		"*1\r\n$1\n", "*1\r\n$1\r\nab\r\n", "*1\r\n$1\r\nabc", "set \"k\n", "set \"a\"b\r\n",
	}
	for _, in := range bad {
		_, want := redcon.Parse([]byte(in))
		_, _, err := parseCommand([]byte(in), nil)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: err %v, redcon %v", in, err, want)
		}
	}
}

// Arguments point into the input, and a pipeline parses command by command.
func TestParseCommandPipelineWithoutCopies(t *testing.T) {
	in := []byte("*2\r\n$4\r\nINCR\r\n$1\r\nn\r\nPING\r\n*1\r\n$4\r\nPI")
	n, args, err := parseCommand(in, nil)
	if err != nil || n != 21 || len(args) != 2 || &args[1][0] != &in[18] {
		t.Fatalf("first: %d %q %v", n, args, err)
	}
	n2, args, err := parseCommand(in[n:], args[:0])
	if err != nil || n2 != 6 || !bytes.Equal(args[0], []byte("PING")) {
		t.Fatalf("inline: %d %q %v", n2, args, err)
	}
	if _, _, err := parseCommand(in[n+n2:], nil); err != errIncomplete {
		t.Fatalf("partial: %v", err)
	}
}
