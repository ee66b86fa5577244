package server

import (
	"reflect"
	"testing"
)

// Server stays a composition of small types with their own files (issue
// 41: fewer than 30 fields). A new concern gets its own type, not more
// fields here.
func TestServerFieldCount(t *testing.T) {
	if n := reflect.TypeFor[Server]().NumField(); n >= 30 {
		t.Fatalf("Server has %d fields; group them into their own types (lifecycle.go, listeners.go, ...) to stay under 30", n)
	}
}
