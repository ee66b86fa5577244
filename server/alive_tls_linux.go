package server

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerShutDown reports whether the peer of the socket under rc has shut
// down its side (POLLRDHUP), whatever it sent before. A TLS client's
// close_notify is such unread data, which connClosed's peek cannot tell
// from a pipelined command; its FIN follows, and this sees it.
func peerShutDown(rc syscall.RawConn) bool {
	gone := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return gone
}
