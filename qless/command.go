package qless

import (
	"strconv"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
)

// libName is the library our scripts are registered under in the engine.
const libName = "qless"

// Register loads our qless library into the engine (once per pooled Lua
// state, not per call) and adds the native QLESS command to the table:
//
//	QLESS <function> <now> <args...>
//
// The arguments after now are those of qless.lua's API and the reply is what
// qless.lua returns. now may be the word "now" for the server's clock.
func Register(t *commands.Table, e *scripts.Engine) error {
	// One library serves QLESS and EVALSHA of the printed script. It is
	// registered two lines down, where Script() puts it, so both report
	// the line numbers the script has on Redis.
	if err := e.RegisterLibrary(libName, "\n\n"+Library()); err != nil {
		return err
	}
	e.AliasScript(SHA(), libName, func(h scripts.Host, argv [][]byte, w resp.Writer) bool {
		c, ok := commands.WritableHostCtx(h)
		return ok && runFast(c, w, argv)
	})
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
			if runFast(c, c.W, call) {
				return
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
