package commands

import (
	"strings"
	"unsafe"

	"github.com/qlessd/qlessd/scripts"
)

// RegisterScripting adds EVAL, EVALSHA, their _RO forms and SCRIPT, run by
// e. The server's main calls it; the engine is shared by every client.
func RegisterScripting(t *Table, e *scripts.Engine) {
	eval := func(readOnly, bySHA bool) func(c *Ctx, args [][]byte) {
		return func(c *Ctx, args [][]byte) {
			keys, argv, ok := evalArgs(c, args)
			if !ok {
				return
			}
			h := newScriptHost(c, readOnly)
			if bySHA {
				// EvalSHA only looks the SHA up: no copy needed.
				e.EvalSHA(h, unsafe.String(unsafe.SliceData(args[1]), len(args[1])), keys, argv, c.W)
			} else {
				e.Eval(h, args[1], keys, argv, c.W)
			}
			if c.Tx != nil && c.Sess != nil {
				c.Tx.Select(c.Sess.DB())
			}
		}
	}
	const evalFlags = NoScript | SkipMonitor | MayReplicate | Stale | MonitorFirst | RunsClientScript
	t.Add(
		&Cmd{Name: "eval", Arity: -3, Flags: Write | MayWrite | evalFlags, Run: eval(false, false)},
		&Cmd{Name: "evalsha", Arity: -3, Flags: Write | MayWrite | evalFlags | NamesScriptBySHA, Run: eval(false, true)},
		&Cmd{Name: "eval_ro", Arity: -3, Flags: ReadOnly | evalFlags, Run: eval(true, false)},
		&Cmd{Name: "evalsha_ro", Arity: -3, Flags: ReadOnly | evalFlags | NamesScriptBySHA, Run: eval(true, true)},
		&Cmd{Name: "script", Arity: -2, Flags: NoTx | NoScript | AllowBusy | StandInAnswers, BusyOnlyWith: "kill", Run: func(c *Ctx, args [][]byte) { cmdScript(c, args, e) }},
	)
}

// evalArgs splits EVAL's numkeys, keys and arguments, replying as Redis
// does when numkeys is wrong.
func evalArgs(c *Ctx, args [][]byte) (keys, argv [][]byte, ok bool) {
	n, isInt := ParseInt(args[2])
	switch {
	case !isInt:
		c.Error(ErrNotInt)
		return nil, nil, false
	case n > int64(len(args)-3):
		c.Error(ErrNumKeysMore)
		return nil, nil, false
	case n < 0:
		c.Error(ErrNumKeysNeg)
		return nil, nil, false
	}
	return args[3 : 3+n], args[3+n:], true
}

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

func cmdScript(c *Ctx, args [][]byte, e *scripts.Engine) {
	sub := strings.ToLower(string(args[1]))
	wrong := func() { c.Error(WrongArgs("script|" + sub)) }
	switch sub {
	case "load":
		if len(args) != 3 {
			wrong()
			return
		}
		sha, err := e.Load(args[2])
		if err != nil {
			c.Error(err.Error())
			return
		}
		c.W.WriteBulkString(sha)
	case "exists":
		if len(args) < 3 {
			wrong()
			return
		}
		c.W.WriteArray(len(args) - 2)
		for _, a := range args[2:] {
			if len(a) == 40 && e.Exists(string(a)) {
				c.W.WriteInt(1)
			} else {
				c.W.WriteInt(0)
			}
		}
	case "flush":
		if len(args) > 3 || len(args) == 3 && !EqualFold(args[2], "sync") && !EqualFold(args[2], "async") {
			c.Error(ErrScriptFlushMode)
			return
		}
		e.Flush()
		c.OK()
	case "kill":
		if len(args) != 2 {
			wrong()
			return
		}
		if msg := e.Kill(); msg != "" {
			c.Error(msg)
			return
		}
		c.OK()
	case "debug":
		if len(args) != 3 {
			wrong()
			return
		}
		switch {
		case EqualFold(args[2], "no"):
			c.OK()
		case EqualFold(args[2], "yes"), EqualFold(args[2], "sync"):
			// Redis would switch the next EVAL into its debugger protocol.
			c.Error(ErrScriptNoDebugger)
		default:
			c.Error(ErrScriptDebugMode)
		}
	case "help":
		if len(args) != 2 {
			wrong()
			return
		}
		c.W.WriteArray(len(scriptHelp))
		for _, l := range scriptHelp {
			c.W.WriteStatus(l)
		}
	default:
		c.Error(Errorf(ErrUnknownSub, string(args[1]), "SCRIPT"))
	}
}

// RunsScript reports whether cmd runs a client's script (RunsClientScript).
func RunsScript(cmd *Cmd) bool { return cmd.Flags&RunsClientScript != 0 }

// ScriptSHA is the script an EVALSHA or EVALSHA_RO names (nil for EVAL).
func ScriptSHA(cmd *Cmd, args [][]byte) []byte {
	if cmd.Flags&NamesScriptBySHA != 0 && len(args) > 1 {
		return args[1]
	}
	return nil
}

// AllowedWhileBusy reports whether a command may run while a script is
// past its time limit: those flagged AllowBusy, with their BusyOnlyWith
// argument when they have one (SCRIPT KILL, SHUTDOWN NOSAVE), as in Redis.
func AllowedWhileBusy(cmd *Cmd, args [][]byte) bool {
	if cmd.BusyOnlyWith != "" {
		return len(args) >= 2 && EqualFold(args[1], cmd.BusyOnlyWith)
	}
	return cmd.Flags&AllowBusy != 0
}
