package server

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

var defaultLimits = reqLimits{maxBulk: defaultMaxBulk}

// readAll reads the commands in b as a connection reads them, and how it
// ends: "" when b holds part of a command at most, else the protocol error.
func readAll(b []byte, lim reqLimits) (cmds []string, end string) {
	var p reqParser
	for len(b) > 0 {
		n, args, err := p.next(b, lim, nil)
		if err == errIncomplete {
			return cmds, ""
		}
		if err != nil {
			return cmds, err.Error()
		}
		if len(args) > 0 {
			cmds = append(cmds, fmt.Sprintf("%q", args))
		}
		b = b[n:]
	}
	return cmds, ""
}

// Each case's commands and ending are what redis-server 7.0.15 did with
// the same bytes.
var redisCases = []struct {
	in   string
	cmds []string // %q of each command's arguments
	end  string   // "" when left waiting for more
}{
	{"*1\r\n$4\r\nPING\r\n", []string{`["PING"]`}, ""},
	{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", []string{`["SET" "k" ""]`}, ""},
	{"*2\r\n$3\r\nGET\r\n$4\r\na\r\nb\r\n", []string{`["GET" "a\r\nb"]`}, ""},
	{"*0\r\nPING\r\n", []string{`["PING"]`}, ""},
	{"*-1\r\nPING\r\n", []string{`["PING"]`}, ""},
	{"*-2\r\nPING\r\n", []string{`["PING"]`}, ""},
	{"*1\r\n$4\r\nPING\r\n*0\r\n*1\r\n$4\r\nPING\r\n", []string{`["PING"]`, `["PING"]`}, ""},
	{"*x\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*+1\r\n$4\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*01\r\n$04\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*1 \r\n$4\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*-0\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*99999999999999999999\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*2147483648\r\n", nil, "Protocol error: invalid multibulk length"},
	{"*2147483647\r\n", nil, ""},
	{"*1048577\r\n", nil, ""},
	{"*1\n", nil, ""},
	{"*1\r", nil, ""},
	{"*1\rX$4\r\nPING\r\n", []string{`["PING"]`}, ""},
	{"*1\r\n$4\rXPING\r\n", []string{`["PING"]`}, ""},
	{"*1\r\n+OK\r\n", nil, "Protocol error: expected '$', got '+'"},
	{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n:1\r\n", nil, "Protocol error: expected '$', got ':'"},
	{"*1\r\n\r\n", nil, "Protocol error: expected '$', got ' '"},
	{"*1\r\n$x\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$-1\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$-2\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$-0\r\n\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$ 4\r\nPING\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$+4\r\nPING\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$99999999999999999999\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$536870913\r\n", nil, "Protocol error: invalid bulk length"},
	{"*1\r\n$536870912\r\n", nil, ""},
	{"*1\r\n$1\n", nil, ""},
	// The two bytes after an argument are skipped unread.
	{"*1\r\n$1\r\nab\r\n", []string{`["a"]`}, ""},
	{"*1\r\n$1\r\nabc", []string{`["a"]`}, ""},
	{"*1\r\n$4\r\nPINGxx", []string{`["PING"]`}, ""},
	{"*1\r\n$4\r\nPING\r\n\r\n", []string{`["PING"]`}, ""},
	// A NUL hides the end of a line, as strchr stops at it.
	{"*1\x00\r\n$4\r\nPING\r\n", nil, ""},
	{"*1\r\n$4\x00\r\nPING\r\n", nil, ""},
	{"PI\x00NG\r\nPING\r\n", nil, ""},
	{"*" + strings.Repeat("1", 70000), nil, "Protocol error: too big mbulk count string"},
	{"*1\r\n$" + strings.Repeat("1", 70000), nil, "Protocol error: too big bulk count string"},
	{strings.Repeat("x", 65536), nil, ""},
	{strings.Repeat("x", 65537), nil, "Protocol error: too big inline request"},
	{"*1\x00" + strings.Repeat("1", 70000), nil, "Protocol error: too big mbulk count string"},
	// Inline commands.
	{"PING\r\n", []string{`["PING"]`}, ""},
	{"\r\n\n  \t \r\nPING\r\n", []string{`["PING"]`}, ""},
	{"PING\rx\n", []string{`["PING" "x"]`}, ""},
	{"set \"k\n", nil, "Protocol error: unbalanced quotes in request"},
	{"set \"a\"b\r\n", nil, "Protocol error: unbalanced quotes in request"},
	{"PING a\"b\r\n", nil, "Protocol error: unbalanced quotes in request"},
	{"ECHO \"a\\\"\r\n", nil, "Protocol error: unbalanced quotes in request"},
	{"ECHO a'b c'd\r\n", nil, "Protocol error: unbalanced quotes in request"},
	{"PING \"a\\x41\"\r\n", []string{`["PING" "aA"]`}, ""},
	{"PING 'a\\'b'\r\n", []string{`["PING" "a'b"]`}, ""},
	{"PING \"\\x4g\"\r\n", []string{`["PING" "x4g"]`}, ""},
	{"ECHO \"a\"  \r\n", []string{`["ECHO" "a"]`}, ""},
	{"\"\"\r\n", []string{`[""]`}, ""},
	{"ECHO a\"b c\"\r\n", []string{`["ECHO" "ab c"]`}, ""},
	{"ECHO \va\vb\r\n", []string{`["ECHO" "a\vb"]`}, ""},
	{"ECHO \"a\"\v\r\n", []string{`["ECHO" "a"]`}, ""},
	{"ECHO 'a\\\\b'\r\n", []string{`["ECHO" "a\\\\b"]`}, ""},
	{"ECHO \"\\\\\"\r\n", []string{`["ECHO" "\\"]`}, ""},
	{"ECHO \"\\n\\r\\t\\b\\a\\q\"\r\n", []string{`["ECHO" "\n\r\t\b\aq"]`}, ""},
	{"ECHO \"\\x41\\xZZ\\x4\"\r\n", []string{`["ECHO" "AxZZx4"]`}, ""},
	{"ECHO 'a\"b' \"a'b\"\r\n", []string{`["ECHO" "a\"b" "a'b"]`}, ""},
	{"ECHO \x80\xff a\fb\r\n", []string{`["ECHO" "\x80\xff" "a\fb"]`}, ""},
}

func TestRequestsReadAsRedisReadsThem(t *testing.T) {
	for _, c := range redisCases {
		cmds, end := readAll([]byte(c.in), defaultLimits)
		if fmt.Sprint(cmds) != fmt.Sprint(c.cmds) || end != c.end {
			t.Errorf("%.60q:\n got %v, end %q\nwant %v, end %q", c.in, cmds, end, c.cmds, c.end)
		}
	}
}

// Whatever the pieces a request arrives in, it reads as it does whole.
func TestRequestsReadAlikeInPieces(t *testing.T) {
	for _, c := range redisCases {
		if len(c.in) > 1000 {
			continue
		}
		wantCmds, wantEnd := readAll([]byte(c.in), defaultLimits)
		for cut := 1; cut < len(c.in); cut++ {
			cmds, end := readSplit([]byte(c.in), defaultLimits, []int{cut})
			if fmt.Sprint(cmds) != fmt.Sprint(wantCmds) || end != wantEnd {
				t.Errorf("%q cut at %d: got %v %q, want %v %q", c.in, cut, cmds, end, wantCmds, wantEnd)
			}
		}
	}
}

// readSplit reads in as it arrives in pieces ending at cuts, each appended
// to a buffer that moves as it grows, as a connection's input does.
func readSplit(in []byte, lim reqLimits, cuts []int) (cmds []string, end string) {
	var p reqParser
	var buf []byte
	from, prev := 0, 0
	for _, cut := range append(cuts, len(in)) {
		buf = append(buf, in[prev:cut]...)
		prev = cut
		for from < len(buf) {
			n, args, err := p.next(buf[from:], lim, nil)
			if err == errIncomplete {
				break
			}
			if err != nil {
				return cmds, err.Error()
			}
			if len(args) > 0 {
				cmds = append(cmds, fmt.Sprintf("%q", args))
			}
			from += n
		}
	}
	return cmds, ""
}

// A client that has yet to authenticate may announce at most 10 arguments
// of at most 16384 bytes, as on Redis 7.0.
func TestRequestsOfUnauthenticatedClients(t *testing.T) {
	unauth := reqLimits{maxBulk: defaultMaxBulk, unauth: true}
	for _, c := range []struct{ in, end string }{
		{"*10\r\n", ""},
		{"*11\r\n", "Protocol error: unauthenticated multibulk length"},
		{"*1\r\n$16384\r\n", ""},
		{"*1\r\n$16385\r\n", "Protocol error: unauthenticated bulk length"},
	} {
		if _, end := readAll([]byte(c.in), unauth); end != c.end {
			t.Errorf("%q: %q, want %q", c.in, end, c.end)
		}
		if _, end := readAll([]byte(c.in), defaultLimits); end != "" {
			t.Errorf("%q authenticated: %q", c.in, end)
		}
	}
	if _, end := readAll([]byte("*1\r\n$1048577\r\n"), reqLimits{maxBulk: 1 << 20}); end != "Protocol error: invalid bulk length" {
		t.Errorf("past proto-max-bulk-len: %q", end)
	}
}

// A command arriving in pieces is read on from where the last piece ended:
// the arguments read stay read. Reading a million one-byte arguments one
// piece of 7 bytes at a time takes each byte once.
func TestRequestResumesWhereItStopped(t *testing.T) {
	const n = 1_000_000
	var in bytes.Buffer
	fmt.Fprintf(&in, "*%d\r\n", n)
	for range n {
		in.WriteString("$1\r\nx\r\n")
	}
	b := in.Bytes()
	var p reqParser
	head := len(fmt.Sprintf("*%d\r\n", n))
	for end := head; end < len(b); end += 7 {
		if _, _, err := p.next(b[:end], defaultLimits, nil); err != errIncomplete {
			t.Fatalf("at %d: %v", end, err)
		}
		if got, want := len(p.spans)/2, (end-head)/7; got != want {
			t.Fatalf("at %d: %d arguments kept, want %d", end, got, want)
		}
	}
	took, args, err := p.next(b, defaultLimits, nil)
	if err != nil || took != len(b) || len(args) != n {
		t.Fatalf("whole: took %d of %d, %d args, %v", took, len(b), len(args), err)
	}
}

// The input a command is missing is what grows a buffer; a long argument
// (commands.BigArg or more) is read into one buffer of its announced size
// instead, as Redis reads one, and the input does not grow for it.
func TestGrowthFollowsTheInput(t *testing.T) {
	var p reqParser
	head := "*1\r\n$30000\r\n"
	b := []byte(head + "xx")
	if _, _, err := p.next(b, defaultLimits, nil); err != errIncomplete {
		t.Fatal(err)
	}
	if p.need() != len(head)+30000+2 {
		t.Fatalf("need %d", p.need())
	}
	var long reqParser
	b = []byte("*1\r\n$536870912\r\nxx")
	if _, _, err := long.next(b, defaultLimits, nil); err != errIncomplete {
		t.Fatal(err)
	}
	if long.need() != 0 || len(long.bigs) != 1 || cap(long.bigs[0]) != bigAlloc || long.bigFill != 2 {
		t.Fatalf("need %d, %d own buffers of %d, filled %d", long.need(), len(long.bigs), cap(long.bigs[0]), long.bigFill)
	}
	// Once bigAlloc bytes have come the buffer goes to the announced
	// length, and no further.
	// The bytes read so far move with each step: each read's first and
	// last byte are marked, and found again in the last buffer.
	var caps, marks []int
	for room := long.bigRoom(); len(room) > 0; room = long.bigRoom() {
		at := long.bigFill
		room[0], room[len(room)-1] = 'a', 'z'
		marks = append(marks, at, at+len(room)-1)
		long.bigRead(len(room))
		caps = append(caps, cap(long.bigs[0]))
	}
	whole := long.bigs[0][:long.bigFill]
	if whole[0] != 'x' || whole[1] != 'x' {
		t.Fatalf("the first bytes read are %q", whole[:2])
	}
	for i, at := range marks {
		if want := "az"[i%2]; whole[at] != want {
			t.Fatalf("byte %d is %q, want %q", at, whole[at], want)
		}
	}
	want := []int{bigAlloc, 536870912 + 2}
	if !slices.Equal(caps, want) {
		t.Fatalf("buffer sizes %v, want %v", caps, want)
	}
	g := grow(make([]byte, len(b), 32<<10), 1<<30)
	if cap(g) != 64<<10 {
		t.Fatalf("grew to %d, want double", cap(g))
	}
	small := grow(make([]byte, 100, 110), 10)
	if cap(small) != 100+minRead {
		t.Fatalf("grew to %d, want room for a read", cap(small))
	}
	near := grow(make([]byte, 1<<20), 100<<10)
	if cap(near) != 1<<20+100<<10 {
		t.Fatalf("grew to %d, want what the argument needs", cap(near))
	}
}

// With proto-max-bulk-len at its largest, an argument announced that long
// waits for its bytes like any other: its buffer is made for no more than
// bigAlloc (bigRoom grows it with what comes past that).
func TestLongestAnnouncedArgument(t *testing.T) {
	var p reqParser
	b := []byte("*1\r\n$9223372036854775807\r\nxx")
	if _, _, err := p.next(b, reqLimits{maxBulk: math.MaxInt64}, nil); err != errIncomplete {
		t.Fatal(err)
	}
	if need := p.need(); need != 0 {
		t.Fatalf("need %d", need)
	}
	if room := p.bigRoom(); len(room) != bigAlloc-2 { // "xx" is in it
		t.Fatalf("room for %d", len(room))
	}
}

// An argument long enough for the store to keep its buffer (store.BigValue)
// is read into a buffer made at its full size with room around it, which
// the command that read it is handed once (takeOwned); shorter long
// arguments, and a buffer made before it reached its full size, have none.
func TestLongArgumentsComeWithRooms(t *testing.T) {
	for _, n := range []int{store.BigValue, 40 << 20} {
		var p reqParser
		mid := bytes.Repeat([]byte("m"), commands.BigArg)
		value := bytes.Repeat([]byte("v"), n)
		b := fmt.Appendf(nil, "*4\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n", len(mid), mid, n)
		b = append(b, value[:100]...)
		if _, _, err := p.next(b, defaultLimits, nil); err != errIncomplete {
			t.Fatal(err)
		}
		sent := append(slices.Clone(value), "\r\n"...)
		for room := p.bigRoom(); len(room) > 0; room = p.bigRoom() {
			p.bigRead(copy(room, sent[p.bigFill:]))
		}
		b = append(b, "$1\r\nk\r\n"...) // the input so far, then what follows the value
		_, args, err := p.next(b, defaultLimits, nil)
		if err != nil || len(args) != 4 || !bytes.Equal(args[2], value) {
			t.Fatalf("n %d: %d args, %v", n, len(args), err)
		}
		owned := p.takeOwned()
		if len(owned) != 1 {
			t.Fatalf("n %d: %d rooms, want the value's alone", n, len(owned))
		}
		r := owned[0]
		if r.Off != store.RoomBefore || r.Len != n || &r.Buf[r.Off] != &args[2][0] || len(r.Buf) != r.Off+n+store.RoomAfter {
			t.Fatalf("n %d: room at %d of %d for %d bytes, shared %v", n, r.Off, len(r.Buf), r.Len, &r.Buf[r.Off] == &args[2][0])
		}
		if again := p.takeOwned(); again != nil {
			t.Fatalf("n %d: the room was handed out twice", n)
		}
	}
}
