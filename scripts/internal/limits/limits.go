// Package limits lets library functions written in Go observe the limits of
// the script that calls them. gopher-lua checks a script's context only
// between instructions, so a built-in that loops over a large input (a
// pattern match, a sort, an encoding) would run on after SCRIPT KILL; such
// loops call Poll every so often instead. And a built-in that builds a
// large result declares it with Grow first, so that the script's memory
// ceiling (lua-max-memory) is kept before the memory is taken.
package limits

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

// Limits is implemented by the context a script runs under.
type Limits interface {
	// Poll raises the error that ends the script when it has been
	// killed.
	Poll(L *lua.LState)
	// Grow raises Lua's "not enough memory" when n more bytes would take
	// the script past its memory ceiling.
	Grow(L *lua.LState, n int)
}

// Every is how many iterations of a cheap loop may pass between polls: a
// few microseconds of work.
const Every = 1024

// Poll raises the running script's kill error if it has been killed; it
// does nothing outside a script (a trusted library call, a bare state).
func Poll(L *lua.LState) {
	if l, ok := L.Context().(Limits); ok {
		l.Poll(L)
	}
}

// Grow raises "not enough memory" if n more bytes would take the running
// script past its memory ceiling; outside a script it does nothing.
func Grow(L *lua.LState, n int) {
	if l, ok := L.Context().(Limits); ok {
		l.Grow(L, n)
	}
}

// Budget is a context with limits for running the modules outside the
// engine (their tests and fuzzers): it refuses to Grow past Max bytes in
// all and is never killed.
type Budget struct {
	context.Context
	Max, used int
}

// NewBudget is a Budget of max bytes.
func NewBudget(max int) *Budget { return &Budget{Context: context.Background(), Max: max} }

// Poll does nothing: a Budget is never killed.
func (b *Budget) Poll(*lua.LState) {}

// Grow raises "not enough memory" once the bytes grown pass Max.
func (b *Budget) Grow(L *lua.LState, n int) {
	if b.used += n; b.used > b.Max {
		L.Error(lua.LString("not enough memory"), 0)
	}
}
