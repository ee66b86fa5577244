package server

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// listeners holds the server's listening sockets: the plain port's and
// tls-port's. CONFIG SET port, tls-port and bind swap them under mu, which
// close also takes so that a swap seeing the close opens nothing more.
type listeners struct {
	mu    sync.Mutex
	plain *gatedListener // nil when only TLS is served
	tls   *gatedListener // tls-port's, or nil (tls.go)
}

// addr is the plain listener's address, or the TLS one's when only TLS is
// served.
func (l *listeners) addr() net.Addr {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addrLocked()
}

func (l *listeners) addrLocked() net.Addr {
	if l.plain == nil {
		return l.tls.Addr()
	}
	return l.plain.Addr()
}

// tlsAddr is the TLS listener's address, nil without one.
func (l *listeners) tlsAddr() net.Addr {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tls == nil {
		return nil
	}
	return l.tls.Addr()
}

// plainPort is the port the plain listener is bound to (the one asked for
// may have been 0), or configured when there is no plain listener.
func (l *listeners) plainPort(configured int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.plainPortLocked(configured)
}

func (l *listeners) plainPortLocked(configured int) int {
	if l.plain != nil {
		if a, ok := l.plain.Addr().(*net.TCPAddr); ok {
			return a.Port
		}
	}
	return configured
}

// gate is the listener whose drained channel a close closes (both share
// it): the plain one, else the TLS one; nil when nothing listens.
func (l *listeners) gate() *gatedListener {
	if l.plain != nil {
		return l.plain
	}
	return l.tls
}

// closeAll stops the kernel accepting on both; their accepting goroutines
// stay held until drained is closed.
func (l *listeners) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pause()
}

// swapTLS makes next (nil: none) the TLS listener and retires the one it
// replaces, whose accepting goroutine then returns at once. The caller
// holds mu.
func (l *listeners) swapTLS(next *gatedListener) {
	l.tls.retire()
	l.tls = next
}

// pause closes the listening sockets but leaves their accepting
// goroutines parked, as if they were still served, until a swap retires
// them (or shutdown drains them). The caller holds mu.
func (l *listeners) pause() {
	for _, ln := range []*gatedListener{l.plain, l.tls} {
		if ln != nil {
			ln.Listener.Close()
		}
	}
}

// swapPlain makes next the plain listener, already accepting, and retires
// the one it replaces. The caller holds mu.
func (l *listeners) swapPlain(next *gatedListener) {
	l.plain.retire()
	l.plain = next
}

// retire closes the socket and lets its accepting goroutine return; nil
// (no listener) is a no-op.
func (ln *gatedListener) retire() {
	if ln != nil {
		close(ln.retired)
		ln.Listener.Close()
	}
}

// gatedListener stops the kernel accepting on Close but holds the accepting
// goroutine until drained is closed: once it returns, every connection
// left is closed, and in-flight commands must finish first.
type gatedListener struct {
	net.Listener
	drained chan struct{}
	retired chan struct{} // closed when CONFIG SET port, tls-port or bind closes it
}

// SyscallConn gives the listening socket, for awaitClient.
func (l *gatedListener) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := l.Listener.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// SetDeadline lets acceptWaiting take only a client already waiting.
func (l *gatedListener) SetDeadline(t time.Time) error {
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		return d.SetDeadline(t)
	}
	return errors.ErrUnsupported
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && errors.Is(err, net.ErrClosed) {
		select {
		case <-l.drained:
		case <-l.retired:
		}
	}
	return c, err
}
