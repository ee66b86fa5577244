package commands

import (
	"net"
	"strconv"
	"strings"
)

// SplitHostList reads http-allowed-hosts: names separated by spaces,
// commas or both, each a DNS name or an IP address, with an optional
// :port ("[::1]:7480" for IPv6 with a port), or "*" for any Host. It
// returns them normalized (lower case, no trailing dot, IPv6 in brackets)
// or the reason one is refused.
func SplitHostList(v string) ([]string, string) {
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		h, reason := normalizeAllowedHost(f)
		if reason != "" {
			return nil, reason
		}
		out = append(out, h)
	}
	return out, ""
}

func normalizeAllowedHost(f string) (string, string) {
	if f == "*" {
		return f, ""
	}
	bad := "'" + f + "' is not a host name, an IP address or either with :port"
	host, port := strings.ToLower(f), ""
	if ip := net.ParseIP(host); ip != nil && strings.Contains(host, ":") {
		return "[" + ip.String() + "]", "" // a bare IPv6 address has no port
	}
	if strings.Contains(host, ":") {
		var err error
		if host, port, err = net.SplitHostPort(host); err != nil {
			return "", bad
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", bad
		}
	}
	host = strings.TrimSuffix(host, ".")
	switch ip := net.ParseIP(host); {
	case ip != nil && ip.To4() == nil:
		host = "[" + ip.String() + "]"
	case ip != nil:
		host = ip.String()
	case !isDNSName(host):
		return "", bad
	}
	if port != "" {
		return host + ":" + port, ""
	}
	return host, ""
}

// isDNSName accepts letters, digits, '-', '_' and dots between labels.
func isDNSName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
