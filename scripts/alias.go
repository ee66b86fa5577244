package scripts

import (
	"sync/atomic"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// A script that is a registered library plus a fixed calling preamble (the
// qless script qlessd prints: check KEYS, build the dispatch function, call
// it with ARGV) need not rebuild the library on every EVALSHA: the library
// is loaded once per state already. AliasScript names the library that runs
// such a script. The library must be the script's body with the same line
// numbers, so errors name the same lines; the script still runs as written
// when KEYS are given (its preamble raises the error) or once SCRIPT FLUSH
// has dropped it (EVALSHA then answers NOSCRIPT as usual).
// fast, when not nil, is offered each aliased call first (see AliasFast).
func (e *Engine) AliasScript(sha, library string, fast AliasFast) *AliasStats {
	a := &aliasOf{library: library, fast: fast, stats: new(AliasStats)}
	e.setAlias(sha, a)
	return a.stats
}

// AliasStock serves a script that is not ours, a known build of another
// project's script (the qless.lua a client library ships), with a library
// that behaves as that build does. The library is called with profile
// before the script's ARGV, so one library serves several builds. Where
// the library raises an error before it has written or published anything
// (it does so on purpose where it does not model a call), the call is
// handed to the script itself, which replies with its own error texts and
// line numbers: the library never has to reproduce those.
// phrase, when not nil, words an error the library raised after writing
// as the script would have ("" when it cannot; see lateErrText).
func (e *Engine) AliasStock(sha, library string, profile int, fast AliasFast, phrase LatePhrase) *AliasStats {
	a := &aliasOf{library: library, fast: fast, stock: true, profile: profile, phrase: phrase, stats: new(AliasStats)}
	e.setAlias(sha, a)
	return a.stats
}

func (e *Engine) setAlias(sha string, a *aliasOf) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.aliases[sha] = a
	if sc, ok := e.cache[sha]; ok {
		// Running calls may hold sc: give the cache a new copy instead.
		c := *sc
		c.alias = a
		e.cache[sha] = &c
	}
}

// AliasFast answers an aliased script's call without Lua when it can: it
// replies to w exactly as the library would and returns true, or returns
// false having written nothing, and the library runs.
type AliasFast func(host Host, argv [][]byte, w resp.Writer) bool

// AliasStats counts how an aliased script's calls were served.
type AliasStats struct {
	// Fast: answered by the AliasFast; Library: by the library's Lua;
	// HandedBack: run by the script itself; Late: the library raised an
	// error after writing, whose text it had to make up (see lateErrText).
	Fast, Library, HandedBack, Late atomic.Int64
}

// aliasOf is what runs an aliased script.
type aliasOf struct {
	library string
	fast    AliasFast
	stock   bool // AliasStock
	profile int
	phrase  LatePhrase
	stats   *AliasStats
}

// LatePhrase words the error value a stock alias's library raised after
// writing as the script's own error reply would read, given the script's
// source; "" when it does not know the error.
type LatePhrase func(sc ScriptSource, obj lua.LValue) string

// ScriptSource is what a LatePhrase may know of the script.
type ScriptSource struct {
	SHA  string
	Body string
}

// runAlias runs script sc by calling its library with argv, replying as
// the script would, error framing included.
func (e *Engine) runAlias(host Host, sc *script, argv [][]byte, w resp.Writer) {
	a := sc.alias
	if a.fast != nil && a.fast(host, argv, w) {
		a.stats.Fast.Add(1)
		return
	}
	if !a.stock {
		a.stats.Library.Add(1)
		e.call(host, true, e.libraryCall(a.library, nil, argv), w, scriptErrText(sc))
		return
	}
	handBack := false
	prep := e.libraryCall(a.library, lua.LNumber(a.profile), argv)
	e.call(host, true, prep, w, func(s *state, obj lua.LValue, killed bool) string {
		if killed {
			return "ERR " + errScriptKilled
		}
		// An error the library can place in the script's source is
		// answered as the script would, before or after writing.
		if a.phrase != nil {
			if msg := a.phrase(ScriptSource{SHA: sc.sha, Body: sc.body}, obj); msg != "" {
				return msg
			}
		}
		if !s.effects {
			handBack = true
			return ""
		}
		a.stats.Late.Add(1)
		msg := lateErrText(sc, obj, killed)
		e.opts.Logger.Warn("a natively served script raised an error after writing; qlessd phrased its reply", "sha", sc.sha, "reply", msg)
		return msg
	})
	if handBack {
		a.stats.HandedBack.Add(1)
		e.runScript(host, sc, nil, argv, w)
		return
	}
	a.stats.Library.Add(1)
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
