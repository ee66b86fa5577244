package qless

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"strings"
	"sync"
)

//go:embed lua/*.lua
var files embed.FS

// order is the concatenation order: later files use earlier locals.
var order = []string{"base.lua", "rate.lua", "throttle.lua", "beyond.lua", "queue.lua", "job.lua", "recurring.lua", "worker.lua", "api.lua"}

var (
	once    sync.Once
	library string
	script  string
	sha     string
)

func build() {
	var b strings.Builder
	for _, name := range order {
		src, err := files.ReadFile("lua/" + name)
		if err != nil {
			panic("qless: missing embedded " + name)
		}
		b.WriteString("-- ")
		b.WriteString(name)
		b.WriteString("\n")
		b.Write(src)
	}
	library = b.String()
	script = "if #KEYS > 0 then error('No Keys should be provided') end\n" +
		"local dispatch = (function(...)\n" + library + "end)()\n" +
		"return dispatch(unpack(ARGV))\n"
	sum := sha1.Sum([]byte(script))
	sha = hex.EncodeToString(sum[:])
}

// Library returns one Lua chunk that, run once per Lua state, returns the
// dispatch function `function(fn, now, ...)`. It validates now and the
// function name and calls the API function with now as a number.
func Library() string {
	once.Do(build)
	return library
}

// Script returns a standalone script with qless.lua's calling convention:
// EVALSHA <sha> 0 <function> <now> <args...>.
func Script() string {
	once.Do(build)
	return script
}

// SHA returns the SHA1 of Script() as EVALSHA expects it.
func SHA() string {
	once.Do(build)
	return sha
}
