package main

import (
	"net"
	"testing"
)

// The start-up log's dashboard URL is one a browser on this machine opens:
// the bound address, a wildcard's host as localhost.
func TestDashboardURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:7480": "http://127.0.0.1:7480/",
		"[::1]:7480":     "http://[::1]:7480/",
		"[::]:7480":      "http://localhost:7480/",
		"0.0.0.0:7480":   "http://localhost:7480/",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := dashboardURL(a, false); got != want {
			t.Errorf("dashboardURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
