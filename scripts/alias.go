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
func (e *Engine) AliasScript(sha, library string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.aliases[sha] = library
	if sc, ok := e.cache[sha]; ok {
		// Running calls may hold sc: give the cache a new copy instead.
		c := *sc
		c.alias = library
		e.cache[sha] = &c
	}
}

// runAlias runs script sc by calling its library with argv, replying as
// the script would, error framing included.
func (e *Engine) runAlias(host Host, sc *script, argv [][]byte, w resp.Writer) {
	e.call(host, true, e.libraryCall(sc.alias, argv), w, scriptErrText(sc))
}
