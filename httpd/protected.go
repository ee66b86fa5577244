package httpd

import (
	"fmt"
	"net"
	"net/http"
)

// Protected mode covers the HTTP listener as it covers the RESP port
// (protected-mode yes and no password): the job data, the dashboard's
// actions and /metrics are no more open to the network than the store.
//
//   - At start, a listener beyond loopback in protected mode is refused,
//     as qlessd refuses --bind beyond loopback then: the operator learns at
//     once, not from a browser's 403.
//   - At run time (CONFIG SET requirepass "" or protected-mode yes on a
//     node bound beyond loopback) every request from beyond loopback gets
//     403 with the reason, whatever the path, as Redis refuses each new
//     RESP connection; loopback clients are served.

// protectedDenied is the one-line reason a refused request is given.
const protectedDenied = "403 Forbidden: qlessd is in protected mode (protected-mode yes and no requirepass), " +
	"which serves only clients on the loopback interface; set requirepass, or CONFIG SET protected-mode no from loopback"

// checkProtected refuses a listener beyond loopback in protected mode.
func (s *Server) checkProtected() error {
	if !s.guarded || s.opts.Protected == nil || !s.opts.Protected() {
		return nil
	}
	return fmt.Errorf("protected mode: refusing to serve HTTP on %q without a password; set --requirepass, "+
		"keep --http-addr on loopback, or --protected-mode no to serve the dashboard and metrics to the network unauthenticated", s.opts.Addr)
}

// deniedByProtectedMode reports whether r comes from beyond loopback while
// protected mode applies.
func (s *Server) deniedByProtectedMode(r *http.Request) bool {
	if !s.guarded || s.opts.Protected == nil || !s.opts.Protected() {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return true
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}
