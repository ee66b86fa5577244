package server

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// The event loops serve TLS clients as they serve plain ones. Go's
// crypto/tls drives a net.Conn, so under each TLS client's tls.Conn is a
// tlsPipe: the socket itself while the handshake runs on a goroutine of its
// own (the handshake blocks, with a deadline), then, once the loop has the
// connection, the loop's non-blocking descriptor. When that is empty a read
// reports a temporary net.Error: crypto/tls keeps the part of a record it
// has read and does not keep such an error (conn.go, readRecordOrCCS), so
// the next turn's Read carries on. Records written (replies, and what
// crypto/tls sends by itself: a key update's answer, alerts, close_notify)
// collect in the pipe for the loop to send. The decrypted input goes
// through the loop's parser like a plain client's; replies are encrypted
// as the loop flushes them, a share at a time, so that replies the socket
// does not take wait in clear in the connection's output, where they are
// counted, as a plain client's do.

// tlsPipe is what a TLS client's tls.Conn reads and writes.
type tlsPipe struct {
	sock  net.Conn // the socket; nil while an event loop has the connection
	tc    *tls.Conn
	local net.Addr
	peer  net.Addr
	lc    *loopConn // the connection while an event loop has it
	// drained: the last read of the descriptor took less than asked, so it
	// is empty until the loop's next read of the connection
	drained bool
	out     []byte // records written, sent from outSent on
	// in: records the ring read that crypto/tls has not taken yet; inErr:
	// how that read ended, once in is taken
	in      []byte
	inErr   error
	outSent int
	// sendMu orders, once the connection has left the loop, the sending of
	// out with crypto/tls's own writes (a CLIENT KILL's close_notify)
	sendMu sync.Mutex
}

// newTLSConn wraps an accepted socket as a TLS client's connection.
func newTLSConn(c net.Conn, conf *tls.Config) tlsConn {
	p := &tlsPipe{sock: c, local: c.LocalAddr(), peer: c.RemoteAddr()}
	p.tc = tls.Server(p, conf)
	return tlsConn{p.tc}
}

// pipeOf gives the pipe under a TLS client's connection, nil for others.
func pipeOf(c net.Conn) *tlsPipe {
	if tc, ok := c.(tlsConn); ok {
		p, _ := tc.NetConn().(*tlsPipe)
		return p
	}
	return nil
}

// errNoInput is the pipe's report that the loop's descriptor is empty.
var errNoInput net.Error = noInput{}

type noInput struct{}

func (noInput) Error() string   { return "no TLS input yet" }
func (noInput) Timeout() bool   { return false }
func (noInput) Temporary() bool { return true }

func (p *tlsPipe) Read(b []byte) (int, error) {
	if len(p.in) > 0 {
		n := copy(b, p.in)
		p.in = p.in[n:]
		return n, nil
	}
	if p.inErr != nil {
		return 0, p.inErr
	}
	if p.lc == nil {
		return p.sock.Read(b)
	}
	if p.drained || p.lc.fd < 0 {
		return 0, errNoInput
	}
	n, err := sockRead(p.lc.fd, b)
	switch {
	case err != nil && wouldBlock(err):
		p.drained = true
		return 0, errNoInput
	case err != nil:
		// Not a net.Error: crypto/tls keeps it, as it keeps a reset.
		return 0, fmt.Errorf("read: %w", err)
	case n == 0:
		return 0, io.EOF
	case n < len(b):
		p.drained = true
	}
	return n, nil
}

func (p *tlsPipe) Write(b []byte) (int, error) {
	if p.lc == nil {
		p.sendMu.Lock()
		defer p.sendMu.Unlock()
		if err := p.sendOutLocked(); err != nil {
			return 0, err
		}
		return p.sock.Write(b)
	}
	p.out = append(p.out, b...)
	return len(b), nil
}

// sendOut sends, on the socket, the records the loop had not sent when the
// connection left it.
func (p *tlsPipe) sendOut() error {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	return p.sendOutLocked()
}

func (p *tlsPipe) sendOutLocked() error {
	if p.outSent == len(p.out) {
		return nil
	}
	_, err := p.sock.Write(p.out[p.outSent:])
	p.out, p.outSent = nil, 0
	return err
}

func (p *tlsPipe) Close() error {
	if p.lc == nil {
		return p.sock.Close()
	}
	return nil // the loop closes its descriptor
}

func (p *tlsPipe) LocalAddr() net.Addr  { return p.local }
func (p *tlsPipe) RemoteAddr() net.Addr { return p.peer }

// Deadlines bound the handshake and the goroutine's reads; in the loop
// nothing blocks.

func (p *tlsPipe) SetDeadline(t time.Time) error {
	if p.lc == nil {
		return p.sock.SetDeadline(t)
	}
	return nil
}

func (p *tlsPipe) SetReadDeadline(t time.Time) error {
	if p.lc == nil {
		return p.sock.SetReadDeadline(t)
	}
	return nil
}

func (p *tlsPipe) SetWriteDeadline(t time.Time) error {
	if p.lc == nil {
		return p.sock.SetWriteDeadline(t)
	}
	return nil
}

// SyscallConn gives the socket.
func (p *tlsPipe) SyscallConn() (syscall.RawConn, error) {
	if p.lc != nil {
		return loopRaw{p.lc}, nil
	}
	if sc, ok := p.sock.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errServedByLoop
}

// toLoop gives the connection to lc, whose descriptor is a duplicate of
// the socket: the socket closes, without a close_notify.
func (p *tlsPipe) toLoop(lc *loopConn) {
	p.sock.Close()
	p.sock, p.lc = nil, lc
	lc.tls = p
}

// toSocket takes the connection back from the loop, onto sock.
func (p *tlsPipe) toSocket(sock net.Conn) {
	p.sock, p.lc = sock, nil
}

// ringRead takes in the ring's read of the descriptor into in, of asked
// bytes, which ended with err.
func (p *tlsPipe) ringRead(in []byte, err error, asked int) {
	p.in, p.drained = in, true
	switch {
	case err != nil && wouldBlock(err):
	case err != nil:
		// Not a net.Error: crypto/tls keeps it, as it keeps a reset.
		p.inErr = fmt.Errorf("read: %w", err)
	case len(in) == 0:
		p.inErr = io.EOF
	case len(in) == asked:
		p.drained = false // the descriptor may hold more
	}
}

// keepIn copies what crypto/tls left of the ring's read (the turn took
// its share of the input) out of the loop's buffer, which the next read
// reuses.
func (p *tlsPipe) keepIn() {
	if len(p.in) > 0 {
		p.in = bytes.Clone(p.in)
	} else {
		p.in = nil
	}
}

// tlsRingRead is the most of a TLS client's records the ring reads at a
// time; crypto/tls reads on from the descriptor when there was more.
const tlsRingRead = 16 << 10

// readTLS fills room with decrypted input, as far as the records in hand
// and the descriptor go. Its error is EAGAIN when they ran out first.
func (lc *loopConn) readTLS(room []byte) (int, error) {
	p := lc.tls
	got := 0
	for got < len(room) {
		n, err := p.tc.Read(room[got:])
		got += n
		if err == errNoInput {
			return got, syscall.EAGAIN
		}
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// sockRead reads lc's input: the socket's bytes, or a TLS client's
// decrypted ones.
func (lc *loopConn) sockRead(room []byte) (int, error) {
	if lc.tls != nil {
		return lc.readTLS(room)
	}
	return sockRead(lc.fd, room)
}

// tlsSeal is the most of a TLS client's replies encrypted at a time.
const tlsSeal = 256 << 10

// flushTLS encrypts a TLS client's replies and sends them, as far as the
// socket takes them.
func (lp *eventLoop) flushTLS(lc *loopConn) {
	p := lc.tls
	for {
		for p.outSent < len(p.out) {
			n, err := sockWrite(lc.fd, p.out[p.outSent:])
			if !p.wrote(lc, n, err) {
				return
			}
		}
		if !lc.sealTLS() {
			return
		}
	}
}

// sealTLS encrypts the next share of a TLS client's replies into the
// pipe's out, once what it held went out. It reports whether out holds
// records to send.
func (lc *loopConn) sealTLS() bool {
	p := lc.tls
	if p.outSent < len(p.out) {
		return true
	}
	if cap(p.out) > 2*tlsSeal {
		p.out = nil
	}
	p.out, p.outSent = p.out[:0], 0
	if lc.sent == len(lc.out.b) || lc.dead {
		return false
	}
	end := min(len(lc.out.b), lc.sent+tlsSeal)
	if _, err := p.tc.Write(lc.out.b[lc.sent:end]); err != nil {
		lc.dead = true
		return false
	}
	lc.sent = end
	return true
}

// wrote takes in a write of the pipe's records that sent n bytes, or
// failed with err. It reports whether the socket may take more.
func (p *tlsPipe) wrote(lc *loopConn, n int, err error) bool {
	if n > 0 {
		p.outSent += n
	}
	if err != nil && !wouldBlock(err) {
		lc.dead = true
	}
	return err == nil
}

// owes reports whether lc has output the socket has not taken yet.
func (lc *loopConn) owes() bool {
	return lc.sent < len(lc.out.b) || lc.tls != nil && lc.tls.outSent < len(lc.tls.out)
}

// sayGoodbye sends a TLS client the close_notify alert as it is closed,
// if the socket takes it now.
func (lc *loopConn) sayGoodbye() {
	if lc.tls == nil || lc.dead {
		return
	}
	lc.tls.tc.CloseWrite()
	p := lc.tls
	if p.outSent < len(p.out) {
		sockWrite(lc.fd, p.out[p.outSent:])
	}
	p.out, p.outSent = nil, 0
}

// moreTLS notes that a TLS client may have decrypted or buffered input
// that the turn left: the poller cannot see it, so the next turn reads the
// connection whatever the poller says.
func (lp *eventLoop) moreTLS(lc *loopConn) {
	if lc.tls != nil && !lc.tlsMore {
		lc.tlsMore = true
		lp.tlsMore = append(lp.tlsMore, lc)
	}
}

// takeMoreTLS puts the connections moreTLS noted among the turn's reads.
func (lp *eventLoop) takeMoreTLS() {
	for _, lc := range lp.tlsMore {
		lc.tlsMore = false
		if lc.gone || lc.toRead {
			continue
		}
		lp.join(lc)
		lc.toRead = true
		lp.toRead = append(lp.toRead, lc)
	}
	clear(lp.tlsMore)
	lp.tlsMore = lp.tlsMore[:0]
}

// graduateTLS makes the connection's TLS run on nc, the socket the loop
// gave up, and gives what the session reads and writes from then on; the
// records the loop did not send go first.
func graduateTLS(lc *loopConn, nc net.Conn) net.Conn {
	p := lc.tls
	p.toSocket(nc)
	return tlsConn{p.tc}
}
