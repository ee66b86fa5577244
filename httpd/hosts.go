package httpd

import (
	"net"
	"os"
	"strconv"
	"strings"
)

// A page on another site can make a browser talk to this listener through
// DNS rebinding: its own name comes to resolve to 127.0.0.1, and the
// browser, seeing one origin, lets the page read what the dashboard
// answers and post to it with its CSRF token. Such a request carries the
// attacker's name in Host, so the listener answers only requests whose
// Host is one of its own names:
//
//   - localhost, 127.0.0.1 and [::1];
//   - the host of --http-addr as given, and the address bound;
//   - when bound to every interface (0.0.0.0, ::, or no host), the
//     machine's host name and its interface addresses, read when a request
//     names an address not above, so an address gained since the start
//     counts;
//
// each alone or with the listener's port; and the names in
// http-allowed-hosts: one without a port with none or the listener's
// port, one with a port with that port only, "*" any Host.

// ownNames records the names the listener knows at Listen.
func (s *Server) ownNames() {
	s.names = map[string]bool{"localhost": true, "127.0.0.1": true, "[::1]": true}
	if host, _, err := net.SplitHostPort(s.opts.Addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			s.names[normalHost(host)] = true
		}
	}
	a, ok := s.ln.Addr().(*net.TCPAddr)
	if !ok {
		return
	}
	s.port = strconv.Itoa(a.Port)
	if a.IP.IsUnspecified() {
		s.anyInterface = true
		if h, err := os.Hostname(); err == nil && h != "" {
			s.names[normalHost(h)] = true
		}
		return
	}
	s.names[normalHost(a.IP.String())] = true
}

// AllowedHost reports whether hostport, a Host header or an Origin's
// host, names this listener: the dashboard checks an action's Origin with
// it.
func (s *Server) AllowedHost(hostport string) bool {
	host, port := splitHost(hostport)
	if host == "" {
		return false
	}
	for _, h := range s.allowedHosts() {
		if h == "*" || h == host+":"+port || h == host && (port == "" || port == s.port) {
			return true
		}
	}
	if port != "" && port != s.port {
		return false
	}
	return s.names[host] || s.anyInterface && isInterfaceAddr(host)
}

func (s *Server) allowedHosts() []string {
	if s.opts.AllowedHosts == nil {
		return nil
	}
	return s.opts.AllowedHosts()
}

// splitHost splits a Host into its host, normalized, and its port ("" for
// none). A malformed one gives an empty host.
func splitHost(hostport string) (host, port string) {
	h := hostport
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		var err error
		if h, port, err = net.SplitHostPort(hostport); err != nil {
			return "", ""
		}
		if port == "" {
			return "", ""
		}
	}
	return normalHost(h), port
}

// normalHost writes a host as http-allowed-hosts holds it: lower case,
// without a trailing dot, IP addresses in Go's form, IPv6 in brackets.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")), ".")
	ip := net.ParseIP(h)
	switch {
	case ip == nil:
		return h
	case ip.To4() != nil:
		return ip.String()
	}
	return "[" + ip.String() + "]"
}

// isInterfaceAddr reports whether host is an address of one of the
// machine's interfaces.
func isInterfaceAddr(host string) bool {
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if ip == nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
