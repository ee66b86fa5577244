package server

import (
	"bytes"
	"errors"
	"math"
	"slices"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

// Commands are read from a connection's input as Redis 7.0 reads them
// (processMultibulkBuffer and processInlineBuffer): the same limits, the
// same protocol errors, the same leniency (the two bytes after a bulk are
// skipped unchecked, an empty or negative multibulk is no command). A
// command that arrives in pieces is read on from where the last piece
// ended, so reading it costs what its bytes cost, however it is split.

// protoError is malformed input: the client is told "-ERR Protocol error:
// ..." and the connection closes once the commands before it have run.
type protoError string

func (e protoError) Error() string { return "Protocol error: " + string(e) }

// errIncomplete says the input holds only part of the next command.
var errIncomplete = errors.New("incomplete command")

// errCrossProtocol is a command named POST or Host:, the first words of an
// HTTP request's lines: a browser page or an HTTP client is talking to the
// RESP port, hoping that the lines of its body run as commands (cross
// protocol scripting). As Redis 7.0 does, the commands before it run, and
// the connection then closes with nothing more run or sent (crossprotocol.go).
var errCrossProtocol = errors.New("cross-protocol request (POST or Host:)")

// isProtocolError tells malformed input, which the client hears about
// before the connection closes, from a failing socket.
func isProtocolError(err error) bool {
	var pe protoError
	return errors.As(err, &pe)
}

// The limits Redis 7.0 sets on requests.
const (
	// lineMax is the longest inline command or count line
	// (PROTO_INLINE_MAX_SIZE).
	lineMax = 64 << 10
	// maxMultibulk is the most arguments a command may announce.
	maxMultibulk = math.MaxInt32
	// A client that has to authenticate may announce no more arguments,
	// nor a longer one, than these.
	unauthMaxArgs = 10
	unauthMaxBulk = 16384
	// argBookkeeping is what each argument of a command costs besides its
	// bytes while the command is read and run (its place in the parser and
	// in the argument list): client-query-buffer-limit counts it, so a
	// command of a billion empty arguments is as bounded as a long one.
	argBookkeeping = 40
)

const (
	errUnauthArgs = protoError("unauthenticated multibulk length")
	errUnauthBulk = protoError("unauthenticated bulk length")
)

// reqLimits are what a connection's next command may be.
type reqLimits struct {
	maxBulk int64 // proto-max-bulk-len
	unauth  bool  // the client has yet to authenticate
}

// reqParser reads one command at a time from the start of the unread
// input, remembering between calls how far it got.
type reqParser struct {
	kind    byte // '*' for a multibulk, 'i' for an inline command, 0 before either
	pos     int  // where reading goes on, from the command's start
	scanned int  // bytes from pos known to hold neither the line's end nor a NUL
	nul     bool // the line has a NUL before its end: it can only grow too long
	left    int  // arguments still to read; -1 before the count line
	bulk    int  // length of the argument being read; -1 before its length line
	spans   []int
	// bigs are the command's long arguments (commands.BigArg bytes or
	// more), each read into a buffer of its own of the announced size
	// plus its CRLF, as Redis reads a bulk past PROTO_MBULK_BIG_ARG: no
	// input buffer doubles up to it, and the command keeps it uncopied.
	// The last may still be filling (bigFill bytes of it read).
	bigs    [][]byte
	bigFill int
	// rooms are the buffers of bigs made with room around the argument
	// (store.Room; nil for the others), and owned the rooms of the command
	// last read, which the connection hands to it (takeOwned).
	rooms [][]byte
	owned []store.Room
}

// next reads the command at the start of b. When b holds only part of it
// next returns errIncomplete, and the next call must get the same bytes
// again, with more after them (they may have moved). Once the command is
// whole it returns the bytes it took and appends its arguments to args: a
// multibulk's point into b, an inline command's are new. A command of no
// arguments (an empty line, *0) takes its bytes and appends none. A command
// named POST or Host: takes its bytes, appends nothing, and returns
// errCrossProtocol: nothing after it is to be read.
func (p *reqParser) next(b []byte, lim reqLimits, args [][]byte) (int, [][]byte, error) {
	before := len(args)
	n, args, err := p.read(b, lim, args)
	if err == nil && len(args) > before && isCrossProtocol(args[before]) {
		p.owned = nil
		return n, args[:before], errCrossProtocol
	}
	return n, args, err
}

func (p *reqParser) read(b []byte, lim reqLimits, args [][]byte) (int, [][]byte, error) {
	if p.kind == 0 {
		if len(b) == 0 {
			return 0, args, errIncomplete
		}
		p.kind, p.left, p.bulk = 'i', -1, -1
		if b[0] == '*' {
			p.kind = '*'
		}
	}
	if p.kind == 'i' {
		return p.inline(b, args)
	}
	return p.multibulk(b, lim, args)
}

func (p *reqParser) multibulk(b []byte, lim reqLimits, args [][]byte) (int, [][]byte, error) {
	if p.left < 0 {
		end, err := p.line(b, '\r', "too big mbulk count string")
		if err != nil {
			return 0, args, err
		}
		n, ok := commands.ParseInt(b[p.pos+1 : end])
		switch {
		case !ok || n > maxMultibulk:
			return 0, args, protoError("invalid multibulk length")
		case n > unauthMaxArgs && lim.unauth:
			return 0, args, errUnauthArgs
		}
		p.pos, p.scanned = end+2, 0
		if n <= 0 {
			return p.done(), args, nil
		}
		p.left = int(n)
	}
	for p.left > 0 {
		if p.bulk < 0 {
			if err := p.bulkLine(b, lim); err != nil {
				return 0, args, err
			}
		}
		if p.bulk >= commands.BigArg {
			if !p.takeBig(b) {
				return 0, args, errIncomplete
			}
			// a span of its own kind: (-1, its index in bigs)
			p.spans = append(p.spans, -1, len(p.bigs)-1)
			p.bulk = -1
			p.left--
			continue
		}
		if len(b)-p.pos-2 < p.bulk {
			return 0, args, errIncomplete
		}
		p.spans = append(p.spans, p.pos, p.pos+p.bulk)
		p.pos += p.bulk + 2
		p.bulk = -1
		p.left--
	}
	args = slices.Grow(args, len(p.spans)/2)
	p.owned = nil
	for i := 0; i < len(p.spans); i += 2 {
		from, to := p.spans[i], p.spans[i+1]
		if from < 0 {
			big := p.bigs[to]
			n := len(big) - 2 // the CRLF after it, skipped unchecked
			args = append(args, big[:n:n])
			if room := p.rooms[to]; room != nil {
				p.owned = append(p.owned, store.Room{Buf: room, Off: store.RoomBefore, Len: n})
			}
			continue
		}
		args = append(args, b[from:to:to])
	}
	return p.done(), args, nil
}

// takeBig moves the bytes of the long argument being read that b holds
// past pos into the argument's own buffer, made when it begins. It
// reports whether the argument is whole.
func (p *reqParser) takeBig(b []byte) bool {
	if p.bigFill == 0 && (len(p.bigs) == 0 || len(p.bigs[len(p.bigs)-1]) > 0) {
		big, room := p.newBig(min(p.bigWant(), bigAlloc))
		p.bigs, p.rooms = append(p.bigs, big), append(p.rooms, room)
	}
	room := p.bigRoom()
	n := copy(room, b[p.pos:])
	p.pos += n
	p.bigFill += n
	if p.bigFill < p.bigWant() {
		return false
	}
	big := &p.bigs[len(p.bigs)-1]
	*big = (*big)[:p.bigFill]
	p.bigFill = 0
	return true
}

// bigWant is the size of the long argument being read with its CRLF.
func (p *reqParser) bigWant() int { return min(p.bulk, math.MaxInt-2) + 2 }

// bigAlloc is what a long argument's buffer is made for first. Made at
// its announced length at once, a 512 MB buffer could become resident
// before a byte of it came: the Go runtime zeroes a large object on pages
// the heap used before, so an announcement alone could cost 512 MB
// (TestAnnouncedBulkIsNotAllocated failed one run in three). Once the
// first bigAlloc bytes have come, the buffer goes to the announced length
// in one step (at most bigStep at once), so a big value is copied once
// more, by 32 MB, and no string of doublings is left for the collector at
// the peak (a 500 MB SET peaked at 1.5 GB with doublings, 1 GB without).
const (
	bigAlloc = 32 << 20
	bigStep  = 512<<20 + 2
)

// bigRoom is where the next bytes of a long argument go, read straight
// from the socket; nil when no long argument is being read. It is valid
// only after next reported errIncomplete, which took every byte of the
// input there was.
func (p *reqParser) bigRoom() []byte {
	if p.kind != '*' || p.left <= 0 || p.bulk < commands.BigArg || len(p.bigs) == 0 {
		return nil
	}
	big := &p.bigs[len(p.bigs)-1]
	want := p.bigWant()
	if p.bigFill == cap(*big) && cap(*big) < want {
		// Made by hand: append's growth would round past the length.
		// Past bigStep (proto-max-bulk-len raised) it doubles.
		grown, room := p.newBig(min(want, max(bigStep, 2*cap(*big))))
		copy(grown[:p.bigFill], (*big)[:p.bigFill])
		*big, p.rooms[len(p.rooms)-1] = grown, room
	}
	return (*big)[p.bigFill:min(cap(*big), want)]
}

// newBig makes a buffer of size bytes for the long argument being read,
// returned empty. Made at the argument's full size, and long enough for
// the store to take it over (store.BigValue), the buffer is made with
// room before and after it for the store's records (store.Room), and
// room is the whole of it; nil otherwise.
func (p *reqParser) newBig(size int) (big, room []byte) {
	if size < p.bigWant() || p.bulk < store.BigValue || size > math.MaxInt-store.RoomBefore-store.RoomAfter {
		return make([]byte, 0, size), nil
	}
	room = make([]byte, store.RoomBefore+size+store.RoomAfter-2)
	return room[store.RoomBefore : store.RoomBefore : store.RoomBefore+size], room
}

// takeOwned returns the rooms of the command next just read, each of
// which the store may take over: nothing but the store writes to a
// long argument's buffer once its command is read (the parser lets go
// of it in done, and commands never write to their arguments).
func (p *reqParser) takeOwned() []store.Room {
	o := p.owned
	p.owned = nil
	return o
}

// bigRead takes in n bytes read into bigRoom.
func (p *reqParser) bigRead(n int) { p.bigFill += n }

// bulkLine reads an argument's "$<length>" line.
func (p *reqParser) bulkLine(b []byte, lim reqLimits) error {
	end, err := p.line(b, '\r', "too big bulk count string")
	if err != nil {
		return err
	}
	if c := b[p.pos]; c != '$' {
		if c == '\r' || c == '\n' {
			c = ' ' // Redis keeps line ends out of error replies
		}
		return protoError("expected '$', got '" + string([]byte{c}) + "'")
	}
	n, ok := commands.ParseInt(b[p.pos+1 : end])
	switch {
	case !ok || n < 0 || n > lim.maxBulk:
		return protoError("invalid bulk length")
	case n > unauthMaxBulk && lim.unauth:
		return errUnauthBulk
	}
	p.pos, p.scanned, p.bulk = end+2, 0, int(n)
	return nil
}

func (p *reqParser) inline(b []byte, args [][]byte) (int, [][]byte, error) {
	end, err := p.line(b, '\n', "too big inline request")
	if err != nil {
		return 0, args, err
	}
	line := b[:end]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := resp.SplitArgs(line, args)
	if !ok {
		return 0, args, protoError("unbalanced quotes in request")
	}
	p.pos = end + 1
	return p.done(), args, nil
}

// line finds the end of the line at pos: its first c, which Redis looks
// for with strchr, so a NUL before it hides it. A '\r' needs a byte after
// it, which is skipped unread. The line may be up to lineMax long; past
// that without an end the command is refused with tooBig.
func (p *reqParser) line(b []byte, c byte, tooBig protoError) (int, error) {
	if !p.nul {
		window := b[p.pos:min(len(b), p.pos+lineMax+1)]
		seg := window[p.scanned:]
		i := bytes.IndexByte(seg, c)
		head := seg
		if i >= 0 {
			head = seg[:i]
		}
		switch z := bytes.IndexByte(head, 0); {
		case z >= 0:
			p.nul = true
		case i >= 0:
			end := p.pos + p.scanned + i
			p.scanned += i
			if c == '\r' && end+1 >= len(b) {
				return -1, errIncomplete
			}
			return end, nil
		default:
			p.scanned = len(window)
		}
	}
	if len(b)-p.pos > lineMax {
		return -1, tooBig
	}
	return -1, errIncomplete
}

// done ends the command read and returns the bytes it took.
func (p *reqParser) done() int {
	n := p.pos
	p.kind, p.pos, p.scanned, p.nul = 0, 0, 0, false
	p.bigs, p.rooms, p.bigFill = nil, nil, 0 // the arguments own them now
	if cap(p.spans) > 1<<12 {
		p.spans = nil
	} else {
		p.spans = p.spans[:0]
	}
	return n
}

// need is how many bytes of the command the input must hold before it can
// go on: more than it holds only while an argument's bytes are coming. It
// stops at 2^62, far past any buffer, so that sums with it cannot overflow
// (proto-max-bulk-len may be set to 2^63-1).
func (p *reqParser) need() int {
	if p.kind != '*' || p.left <= 0 || p.bulk < 0 || p.bulk >= commands.BigArg {
		return 0
	}
	return min(p.pos+min(p.bulk, 1<<62)+2, 1<<62)
}

// held is what the command read so far costs besides its bytes in the
// input: its arguments' bookkeeping and its long arguments' bytes read.
func (p *reqParser) held() int {
	n := len(p.spans) / 2 * argBookkeeping
	for _, big := range p.bigs {
		n += len(big)
	}
	return n + p.bigFill
}
