package tests

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// Runtime protected mode for a client on another host: qlessd runs in one
// network namespace, the client in another, joined by a veth pair, so the
// client's requests arrive from 10.233.0.2 over a link, as a colleague's
// browser would. Needs root (skipped otherwise, with the reason).
func TestHTTPProtectedModeFromAnotherHost(t *testing.T) {
	n := newNetnsPair(t)
	port := strconv.Itoa(freePort(t))
	q := startQlessdIn(t, n.srv, "--bind", "0.0.0.0", "--requirepass", "x", "--http-addr", "0.0.0.0:"+port, "--http-admin", "yes")
	_, respPort, _ := net.SplitHostPort(q.Addr)
	client := func(ns string) *http.Client {
		return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialIn(ns)}}
	}
	protectedSteps(t, protectedView{
		admin: rawIn(t, n.srv, q.Addr),
		far:   client(n.cli), farBase: "http://" + net.JoinHostPort(n.srvIP, port),
		near: client(n.srv), nearBase: "http://127.0.0.1:" + port,
		farRESP: func() string {
			c := rawIn(t, n.cli, net.JoinHostPort(n.srvIP, respPort))
			c.c.SetDeadline(time.Now().Add(10 * time.Second))
			got, _ := io.ReadAll(c.c)
			return string(got)
		},
	})
}
