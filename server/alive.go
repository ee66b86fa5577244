package server

import (
	"net"
	"syscall"
)

// connClosed reports whether the peer has closed c, without consuming any
// bytes it may have pipelined: a blocked client is not reading, but its
// departure must still end the wait as it does on Redis.
func connClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	if lc, ok := c.(*loopConn); ok && lc.tls != nil || IsTLS(c) {
		return peerShutDown(raw)
	}
	closed := false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && rerr == nil
		if rerr != nil && rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK {
			closed = true
		}
		return true // never wait for readiness
	})
	return closed || err != nil
}
