package tests

import "testing"

func TestMemoryPurgeAndErrors(t *testing.T) {
	p := StartPair(t)
	p.Same(t, "MEMORY", "PURGE")
	p.Same(t, "memory", "purge")
	p.Same(t, "MEMORY")
	p.Same(t, "MEMORY", "PURGE", "x")
	p.Same(t, "MEMORY", "HELP", "x")
	p.Same(t, "MEMORY", "nosuch")
}
