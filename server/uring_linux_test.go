package server

import (
	"bytes"
	"net"
	"syscall"
	"testing"
)

// socketPairs connects n loopback TCP pairs and returns the non-blocking
// descriptors of each side.
func socketPairs(t *testing.T, n int) (near, far []int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		for _, conn := range []net.Conn{s, c} {
			fd, err := takeFD(conn)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if err := syscall.SetNonblock(fd, true); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { closeFD(fd) })
			if conn == s {
				near = append(near, fd)
			} else {
				far = append(far, fd)
			}
		}
	}
	return near, far
}

func testRing(t *testing.T) *ring {
	t.Helper()
	r, err := newRing()
	switch err {
	case nil:
	case syscall.ENOSYS, syscall.EPERM, syscall.EACCES:
		// A kernel without io_uring, or one that forbids it: the loop
		// then reads and writes a call at a time, as the end-to-end
		// tests run with --io-uring no.
		t.Skipf("no io_uring here: %v", err)
	default:
		t.Fatalf("io_uring set-up: %v", err)
	}
	t.Cleanup(r.close)
	return r
}

// More operations than the ring has entries, run in as many rounds, each
// giving every result under its own tag.
func TestRingSendsAndReceivesPastItsSize(t *testing.T) {
	r := testRing(t)
	n := int(r.size) + 7
	near, far := socketPairs(t, n)
	res := make([]int32, r.size)
	msg := func(i int) []byte { return []byte{'m', byte(i), byte(i >> 8)} }
	for start := 0; start < n; start += int(r.size) {
		end := min(n, start+int(r.size))
		for i := start; i < end; i++ {
			r.add(false, near[i], msg(i), i-start)
		}
		if err := r.run(res); err != nil {
			t.Fatal(err)
		}
		for i := start; i < end; i++ {
			if got, err := ringResult(res[i-start]); got != 3 || err != nil {
				t.Fatalf("send %d: %d, %v", i, got, err)
			}
		}
	}
	bufs := make([][]byte, n)
	for start := 0; start < n; start += int(r.size) {
		end := min(n, start+int(r.size))
		for i := start; i < end; i++ {
			bufs[i] = make([]byte, 16)
			r.add(true, far[i], bufs[i], i-start)
		}
		if err := r.run(res); err != nil {
			t.Fatal(err)
		}
		for i := start; i < end; i++ {
			got, err := ringResult(res[i-start])
			if err != nil || !bytes.Equal(bufs[i][:got], msg(i)) {
				t.Fatalf("receive %d: %q, %v", i, bufs[i][:max(got, 0)], err)
			}
		}
	}
}

// A receive on an empty socket completes at once with EAGAIN, as a
// non-blocking read(2) would; one on a socket whose peer left gives 0.
func TestRingReceiveNeverWaits(t *testing.T) {
	r := testRing(t)
	near, far := socketPairs(t, 2)
	if err := syscall.Shutdown(far[1], syscall.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	res := make([]int32, r.size)
	a, b := make([]byte, 8), make([]byte, 8)
	r.add(true, near[0], a, 0)
	r.add(true, near[1], b, 1)
	if err := r.run(res); err != nil {
		t.Fatal(err)
	}
	if n, err := ringResult(res[0]); !wouldBlock(err) {
		t.Errorf("empty socket: %d, %v; want EAGAIN", n, err)
	}
	if n, err := ringResult(res[1]); n != 0 || err != nil {
		t.Errorf("ended socket: %d, %v; want 0, nil", n, err)
	}
}

// A send larger than the socket takes sends part of it, and the sends
// after it get EAGAIN instead of waiting for the peer to read. The buffers
// are set (which turns the kernel's autotuning off) so that what both
// sides hold is bounded; sends that still find room as the peer's side
// takes in what is in flight are taken, until the socket is full.
func TestRingSendTakesWhatTheSocketTakes(t *testing.T) {
	r := testRing(t)
	near, far := socketPairs(t, 1)
	const buf = 64 << 10
	if err := syscall.SetsockoptInt(near[0], syscall.SOL_SOCKET, syscall.SO_SNDBUF, buf); err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetsockoptInt(far[0], syscall.SOL_SOCKET, syscall.SO_RCVBUF, buf); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 4<<20)
	res := make([]int32, r.size)
	r.add(false, near[0], big, 0)
	if err := r.run(res); err != nil {
		t.Fatal(err)
	}
	sent, err := ringResult(res[0])
	if err != nil || sent <= 0 || sent >= len(big) {
		t.Fatalf("first send: %d, %v; want part of %d bytes", sent, err, len(big))
	}
	for range 10000 {
		r.add(false, near[0], big[sent:], 0)
		if err := r.run(res); err != nil {
			t.Fatal(err)
		}
		n, err := ringResult(res[0])
		switch {
		case wouldBlock(err):
			return
		case err != nil || n <= 0:
			t.Fatalf("send after %d bytes: %d, %v; want EAGAIN or part", sent, n, err)
		}
		if sent += n; sent >= len(big) {
			t.Fatalf("the socket took all %d bytes with no reader", sent)
		}
	}
	t.Fatalf("sends to a socket nobody reads never got EAGAIN: %d bytes taken", sent)
}

// A send to a peer that reset the connection fails with an error (and no
// SIGPIPE), which marks the connection dead.
func TestRingSendToResetPeer(t *testing.T) {
	r := testRing(t)
	near, far := socketPairs(t, 1)
	// SO_LINGER 0: closing sends a reset. A duplicate is closed, as the
	// test's clean-up closes the descriptor itself.
	peer, err := syscall.Dup(far[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetsockoptLinger(peer, syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 0}); err != nil {
		t.Fatal(err)
	}
	syscall.Shutdown(peer, syscall.SHUT_RDWR)
	syscall.Close(peer)
	res := make([]int32, r.size)
	lc := &loopConn{out: bufWriter{b: []byte("+OK\r\n")}}
	for range 2 {
		r.add(false, near[0], lc.out.b[lc.sent:], 0)
		if err := r.run(res); err != nil {
			t.Fatal(err)
		}
		if lc.wrote(ringResult(res[0])); lc.dead {
			return
		}
	}
	t.Fatalf("sends to a reset peer did not fail: sent %d", lc.sent)
}
