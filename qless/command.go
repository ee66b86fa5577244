package qless

import (
	"strconv"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/scripts"
)

// libName is the library our scripts are registered under in the engine.
const (
	libName       = "qless"
	scriptLibName = "qless-script" // the library behind EVALSHA of Script()
)

// Register loads our qless library into the engine (once per pooled Lua
// state, not per call) and adds the native QLESS command to the table:
//
//	QLESS <function> <now> <args...>
//
// The arguments after now are those of qless.lua's API and the reply is what
// qless.lua returns. now may be the word "now" for the server's clock.
func Register(t *commands.Table, e *scripts.Engine) error {
	if err := e.RegisterLibrary(libName, Library()); err != nil {
		return err
	}
	// EVALSHA of the printed script runs the same code, loaded once per Lua
	// state; the two lines Script() puts before the library keep its line
	// numbers in errors.
	if err := e.RegisterLibrary(scriptLibName, "\n\n"+Library()); err != nil {
		return err
	}
	e.AliasScript(SHA(), scriptLibName)
	commands.MarkScriptCommand("qless")
	t.Add(&commands.Cmd{
		Name:  "qless",
		Arity: -2,
		// QLESS runs Lua: calling it from a script would re-enter the engine.
		Flags: commands.Write | commands.DenyOOM | commands.NoScript,
		Run: func(c *commands.Ctx, args [][]byte) {
			call := args[1:]
			if len(call) >= 2 && commands.EqualFold(call[1], "now") {
				call = append([][]byte{call[0], clockNow()}, call[2:]...)
			}
			e.CallLibrary(commands.ScriptHost(c, false), libName, call, c.W)
		},
	})
	return nil
}

// clockNow is the server's clock as qless clients send it: unix seconds
// with microseconds.
func clockNow() []byte {
	now := time.Now()
	return strconv.AppendFloat(nil, float64(now.UnixMicro())/1e6, 'f', 6, 64)
}
