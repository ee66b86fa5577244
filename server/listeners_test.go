package server

import (
	"errors"
	"net"
	"testing"
	"time"
)

func listenLoopback(t *testing.T, drained chan struct{}, tls bool) *gatedListener {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gl := &gatedListener{Listener: inner, drained: drained}
	if tls {
		gl.retired = make(chan struct{})
	}
	return gl
}

// acceptReturned starts an Accept on ln and gives the channel its error
// arrives on.
func acceptReturned(ln *gatedListener) chan error {
	got := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		got <- err
	}()
	return got
}

// The address is the plain listener's, or the TLS one's when only TLS is
// served; the gate follows the same choice.
func TestListenersAddrAndGate(t *testing.T) {
	var l listeners
	if l.gate() != nil || l.tlsAddr() != nil {
		t.Fatal("no listener, yet a gate or a TLS address")
	}
	if got := l.plainPort(6379); got != 6379 {
		t.Fatalf("plainPort without a listener: %d, want the configured 6379", got)
	}
	drained := make(chan struct{})
	defer close(drained)
	l.tls = listenLoopback(t, drained, true)
	if l.addr() != l.tls.Addr() || l.gate() != l.tls {
		t.Fatal("TLS only: the address or gate is not the TLS listener's")
	}
	l.plain = listenLoopback(t, drained, false)
	if l.addr() != l.plain.Addr() || l.gate() != l.plain || l.tlsAddr() != l.tls.Addr() {
		t.Fatal("with a plain listener: the address or gate is not its")
	}
	if got := l.plainPort(0); got != l.plain.Addr().(*net.TCPAddr).Port {
		t.Fatalf("plainPort %d, want the bound %v", got, l.plain.Addr())
	}
	l.closeAll()
}

// closeAll stops accepting on both listeners, yet their accepting
// goroutines return only once the close has drained.
func TestListenersCloseAllHoldsUntilDrained(t *testing.T) {
	drained := make(chan struct{})
	l := listeners{plain: listenLoopback(t, drained, false), tls: listenLoopback(t, drained, true)}
	plain, tls := acceptReturned(l.plain), acceptReturned(l.tls)
	l.closeAll()
	select {
	case err := <-plain:
		t.Fatalf("the plain accept returned (%v) before the drain", err)
	case err := <-tls:
		t.Fatalf("the TLS accept returned (%v) before the drain", err)
	default:
	}
	close(drained)
	for _, got := range []chan error{plain, tls} {
		select {
		case err := <-got:
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("accept returned %v, want net.ErrClosed", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("an accept still held after the drain")
		}
	}
}

// swapTLS retires the TLS listener it replaces: its accepting goroutine
// returns at once, without a drain.
func TestListenersSwapTLSRetiresTheOld(t *testing.T) {
	drained := make(chan struct{})
	defer close(drained)
	old := listenLoopback(t, drained, true)
	l := listeners{tls: old}
	got := acceptReturned(old)
	next := listenLoopback(t, drained, true)
	l.mu.Lock()
	l.swapTLS(next)
	l.mu.Unlock()
	select {
	case err := <-got:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("the old accept returned %v, want net.ErrClosed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the retired listener's accept is still held")
	}
	if l.tlsAddr() != next.Addr() {
		t.Fatal("tlsAddr is not the new listener's")
	}
	l.mu.Lock()
	l.swapTLS(nil)
	l.mu.Unlock()
	if l.tlsAddr() != nil {
		t.Fatal("a TLS address after swapping to none")
	}
}
