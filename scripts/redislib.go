package scripts

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// Redis 7.0's texts for the redis library's own errors.
const (
	errNoArgs         = "Please specify at least one argument for this redis lib call"
	errArgType        = "Lua redis lib command arguments must be strings or integers"
	errReplyArgs      = "wrong number or type of arguments"
	errSha1Args       = "wrong number of arguments"
	errLogArgs        = "redis.log() requires two arguments or more."
	errLogLevel       = "Invalid debug level."
	errSetRespArgs    = "redis.setresp() requires one argument."
	errRespVersion    = "RESP version must be 2 or 3."
	errSetReplArgs    = "redis.set_repl() requires two arguments."
	errReplFlags      = "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."
	errAclCmd         = "Invalid command passed to redis.acl_check_cmd()"
	errNoWritesScript = "Write commands are not allowed from read-only scripts."
	errScriptKilled   = "Script killed by user with SCRIPT KILL..."
	redisVersion      = "7.0.15" // commands.RedisVersion
	redisVersionNum   = 0x07000f
	replNone, replAll = 0, 3
)

// redisLib builds the redis table of one state. Its functions reach the
// running call through s, which the engine points at each call's host.
func (s *state) redisLib() *lua.LTable {
	L := s.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return s.redisCall(L, true) },
		"pcall":              func(L *lua.LState) int { return s.redisCall(L, false) },
		"error_reply":        s.errorReply,
		"status_reply":       s.statusReply,
		"sha1hex":            sha1hexFn,
		"log":                s.log,
		"setresp":            s.setResp,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"set_repl":           setRepl,
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
		"acl_check_cmd":      s.aclCheckCmd,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]int{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": replNone, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": replAll,
	} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(redisVersionNum))
	return t
}

// raise throws a Redis-style error table ({err="ERR msg"}), which the
// script's error handler dresses with its position.
func raise(L *lua.LState, msg string) {
	L.Error(errTable(L, "ERR "+msg), 0)
}

func errTable(L *lua.LState, full string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(full))
	return t
}

// redisCall is redis.call (raise) and redis.pcall: the arguments become a
// command line, the host runs it, and the reply comes back as Lua values.
func (s *state) redisCall(L *lua.LState, raiseErr bool) int {
	fail := func(msg string) int {
		if raiseErr {
			raise(L, msg)
		}
		L.Push(errTable(L, "ERR "+msg))
		return 1
	}
	n := L.GetTop()
	if n == 0 {
		return fail(errNoArgs)
	}
	args, nums := s.callArgs[:0], s.callNums[:0]
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args = append(args, stringBytes(string(v)))
		case lua.LNumber:
			start := len(nums)
			nums = appendArgNumber(nums, float64(v))
			args = append(args, nums[start:len(nums):len(nums)])
		default:
			return fail(errArgType)
		}
	}
	// Kept for the next call; dropped meanwhile in case the command reaches
	// redis.call again (it cannot today: QLESS and EVAL are NoScript).
	s.callArgs, s.callNums = nil, nil
	defer func() {
		clear(args)
		s.callArgs, s.callNums = args[:0], nums[:0]
	}()
	if s.host == nil {
		return fail("redis.call is not available here")
	}
	if s.lib && s.cur != nil {
		s.pollLibrary(L)
	}
	known, write := s.host.Lookup(args[0])
	if known && write && s.noWrites {
		return fail(errNoWritesScript)
	}
	if known && write && s.cur != nil && !s.cur.noteWrite() {
		// SCRIPT KILL got here first: stop before the write.
		L.RaiseError(errScriptKilled)
	}
	s.lw.reset(L, s.resp3)
	s.host.Call(args, &s.lw)
	// A Redis command that fails changes nothing.
	if (write || isPublish(args[0])) && !s.lw.isErr {
		s.effects = true
	}
	// The reply is made by now (it cannot be refused while the command
	// writes it); it counts against the script's memory ceiling here.
	limits.Grow(L, s.lw.bytes)
	if !s.lw.done {
		s.lw.result = lua.LFalse
	}
	if s.lw.isErr && raiseErr {
		L.Error(s.lw.result, 0)
	}
	L.Push(s.lw.result)
	return 1
}

func (s *state) errorReply(L *lua.LState) int {
	str, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errTable(L, "ERR "+errReplyArgs))
		return 1
	}
	msg := string(str)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(errTable(L, errorBuffText(msg)))
	return 1
}

// errorBuffText is luaPushErrorBuff: "-CODE msg" keeps its code, a bare
// message gets ERR, and trailing CR/LF go.
func errorBuffText(s string) string {
	code, msg := "ERR", s
	if strings.HasPrefix(s, "-") {
		if sp := strings.IndexByte(s, ' '); sp >= 0 {
			code, msg = s[1:sp], s[sp+1:]
		} else {
			msg = s[1:]
		}
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

func (s *state) statusReply(L *lua.LState) int {
	str, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errTable(L, "ERR "+errReplyArgs))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", str)
	L.Push(t)
	return 1
}

func sha1hexFn(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, errSha1Args)
	}
	var b []byte
	switch v := L.Get(1).(type) {
	case lua.LString:
		b = []byte(v)
	case lua.LNumber:
		b = []byte(fmtNumber(float64(v)))
	}
	sum := sha1.Sum(b)
	L.Push(lua.LString(hex.EncodeToString(sum[:])))
	return 1
}

func (s *state) log(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		raise(L, errLogArgs)
	}
	lv, ok := L.Get(1).(lua.LNumber)
	if !ok {
		raise(L, "First argument must be a number (log level).")
	}
	if lv < 0 || lv > 3 {
		raise(L, errLogLevel)
	}
	parts := make([]string, 0, n-1)
	for i := 2; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			parts = append(parts, string(v))
		case lua.LNumber:
			parts = append(parts, fmtNumber(float64(v)))
		}
	}
	if s.logger != nil {
		level := []slog.Level{slog.LevelDebug, slog.LevelDebug + 2, slog.LevelInfo, slog.LevelWarn}[int(lv)]
		s.logger.Log(context.Background(), level, strings.Join(parts, " "), "source", "script")
	}
	return 0
}

// setResp is redis.setresp: the protocol redis.call's replies are given
// to the script in (see luaWriter), and how its boolean results convert.
func (s *state) setResp(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, errSetRespArgs)
	}
	v, _ := L.Get(1).(lua.LNumber)
	if v != 2 && v != 3 {
		raise(L, errRespVersion)
	}
	s.resp3 = v == 3
	return 0
}

func setRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, errSetReplArgs)
	}
	v, _ := L.Get(1).(lua.LNumber)
	if v < replNone || v > replAll || float64(v) != float64(int(v)) {
		raise(L, errReplFlags)
	}
	return 0
}

func (s *state) aclCheckCmd(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		raise(L, errNoArgs)
	}
	name, ok := L.Get(1).(lua.LString)
	if !ok {
		raise(L, errArgType)
	}
	if s.host == nil {
		raise(L, errAclCmd)
	}
	if known, _ := s.host.Lookup([]byte(name)); !known {
		raise(L, errAclCmd)
	}
	L.Push(lua.LTrue)
	return 1
}

// isPublish reports whether a command name is PUBLISH or SPUBLISH, which
// change nothing in the store but reach subscribers at once.
func isPublish(name []byte) bool {
	switch len(name) {
	case 7:
		return strings.EqualFold(string(name), "publish")
	case 8:
		return strings.EqualFold(string(name), "spublish")
	}
	return false
}
