package scripts

import "github.com/qlessd/qlessd/resp"

// A script that is a registered library plus a fixed calling preamble (the
// qless script qlessd prints: check KEYS, build the dispatch function, call
// it with ARGV) need not rebuild the library on every EVALSHA: the library
// is loaded once per state already. AliasScript names the library that runs
// such a script. The library must be the script's body with the same line
// numbers, so errors name the same lines; the script still runs as written
// when KEYS are given (its preamble raises the error) or once SCRIPT FLUSH
// has dropped it (EVALSHA then answers NOSCRIPT as usual).
// fast, when not nil, is offered each aliased call first (see AliasFast).
func (e *Engine) AliasScript(sha, library string, fast AliasFast) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.aliases[sha] = aliasOf{library, fast}
	if sc, ok := e.cache[sha]; ok {
		// Running calls may hold sc: give the cache a new copy instead.
		c := *sc
		c.alias, c.aliasFast = library, fast
		e.cache[sha] = &c
	}
}

// AliasFast answers an aliased script's call without Lua when it can: it
// replies to w exactly as the library would and returns true, or returns
// false having written nothing, and the library runs.
type AliasFast func(host Host, argv [][]byte, w resp.Writer) bool

// aliasOf is what runs an aliased script.
type aliasOf struct {
	library string
	fast    AliasFast
}

// runAlias runs script sc by calling its library with argv, replying as
// the script would, error framing included.
func (e *Engine) runAlias(host Host, sc *script, argv [][]byte, w resp.Writer) {
	if sc.aliasFast != nil && sc.aliasFast(host, argv, w) {
		return
	}
	e.call(host, true, e.libraryCall(sc.alias, argv), w, scriptErrText(sc))
}

// isAlias reports whether sha (any case) names an aliased script.
func (e *Engine) isAlias(sha []byte) bool {
	if len(sha) != 40 {
		return false
	}
	var b [40]byte
	for i, c := range sha {
		if 'A' <= c && c <= 'F' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	e.mu.RLock()
	_, ok := e.aliases[string(b[:])]
	e.mu.RUnlock()
	return ok
}
