//go:build !linux

package server

import "syscall"

// peerShutDown: without POLLRDHUP a TLS client's departure is noticed
// when its wait ends (docs/tls.md).
func peerShutDown(syscall.RawConn) bool { return false }
