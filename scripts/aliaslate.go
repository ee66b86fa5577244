package scripts

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// lateErrText phrases an error that a stock alias's library raised after
// it had written or published, when the script itself can no longer take
// the call over. The library avoids this by checking such calls before
// their first effect; should one slip through, the reply still carries
// Redis's framing, at the script line that raises the same text
// (raiseLine), and AliasStats.Late counts it.
func lateErrText(sc *script, obj lua.LValue, killed bool) string {
	if killed {
		return "ERR " + errScriptKilled
	}
	if msg, ok := obj.(lua.LString); ok {
		text := lateMessage(string(msg))
		return RuntimeErrorReply(sc.sha, raiseLine(sc.body, text), text)
	}
	return fmt.Sprintf("%s script: %s, on @user_script:1.", errMessage(obj), sc.sha)
}

// libraryPosition is where in the library a runtime error was raised,
// as gopher-lua prefixes its message: a line of the library, not of the
// script, which the reply frames with a line of its own.
var libraryPosition = regexp.MustCompile(`^user_script:\d+: `)

// lateMessage is an error message of the library without the library's
// position, in Lua 5.1's words.
func lateMessage(msg string) string {
	return luaMessage(libraryPosition.ReplaceAllString(msg, ""))
}

// raiseLine finds the line of body whose error( or assert( call raises
// msg: of the lines holding a string literal that msg starts with, the one
// whose literals cover most of msg, or the call above it when the literal
// continues a call begun on an earlier line (Lua 5.1 reports the line of
// the call's parenthesis). 1 when no literal matches.
func raiseLine(body, msg string) int {
	lines := strings.Split(body, "\n")
	best, bestScore := -1, 0
	for i, l := range lines {
		score, starts := 0, false
		for _, lit := range stringLiterals(l) {
			if len(lit) >= 4 && strings.Contains(msg, lit) {
				score += len(lit)
				starts = starts || strings.HasPrefix(msg, lit)
			}
		}
		if starts && score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return 1
	}
	for i := best; i >= 0 && i > best-4; i-- {
		if strings.Contains(lines[i], "error(") || strings.Contains(lines[i], "assert(") {
			return i + 1
		}
	}
	return best + 1
}

// stringLiterals lists the contents of the quoted strings on one line of
// Lua, escapes left as written (qless's messages have none).
func stringLiterals(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		q := line[i]
		if q == '-' && strings.HasPrefix(line[i:], "--") {
			break
		}
		if q != '\'' && q != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != q {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			break
		}
		out = append(out, line[i+1:j])
		i = j
	}
	return out
}

// RuntimeErrorReply is the reply Redis gives a script that fails with msg
// (a Lua error raised with its position) at line.
func RuntimeErrorReply(sha string, line int, msg string) string {
	return fmt.Sprintf("ERR user_script:%d: %s script: %s, on @user_script:%d.", line, msg, sha, line)
}
