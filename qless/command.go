package qless

import (
	"strconv"
	"strings"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// libName is the library our scripts are registered under in the engine.
const libName = "qless"

// Options say what Register sets up besides QLESS.
type Options struct {
	// NativeClientScripts serves the known builds of qless.lua that
	// client libraries send (Profiles) with our library and fast paths.
	NativeClientScripts bool
}

// Register loads our qless library into the engine (once per pooled Lua
// state, not per call) and adds the native QLESS command to the table:
//
//	QLESS <function> <now> <args...>
//
// The arguments after now are those of qless.lua's API and the reply is what
// qless.lua returns. now may be the word "now" for the server's clock.
func Register(t *commands.Table, e *scripts.Engine, opts Options) error {
	// One library serves QLESS and EVALSHA of the printed script. It is
	// registered two lines down, where Script() puts it, so both report
	// the line numbers the script has on Redis.
	if err := e.RegisterLibraryWith(libName, "\n\n"+Library(), natives); err != nil {
		return err
	}
	native := []nativeScript{{sha: SHA(), stats: e.AliasScript(SHA(), libName, aliasFast(switchesAll, e))}}
	if opts.NativeClientScripts {
		for _, p := range Profiles {
			native = append(native, nativeScript{p, p.SHA, e.AliasStock(p.SHA, libName, p.switches, aliasFast(p.switches, e), phraseLate)})
		}
	}
	t.AddInfoSectionTx("qless", func(tx *store.Tx, field func(string, any)) {
		infoQueues(field, tx)
		infoNative(field, e, opts, native)
	})
	t.Add(&commands.Cmd{
		Name:  "qless",
		Arity: -2,
		// QLESS runs Lua: calling it from a script would re-enter the engine.
		// MONITOR shows it before the calls of its script, as EVAL.
		Flags: commands.Write | commands.MayWrite | commands.DenyOOM | commands.NoScript | commands.MonitorFirst,
		Run: func(c *commands.Ctx, args [][]byte) {
			call := args[1:]
			if isHelp(call) {
				writeHelp(c.W)
				return
			}
			if len(call) >= 2 && commands.EqualFold(call[1], "now") {
				call = append([][]byte{call[0], clockNow()}, call[2:]...)
			}
			if serve := goServed[strings.ToLower(string(call[0]))]; serve != nil {
				serve(c, call, e)
				return
			}
			if runFast(c, c.W, call, switchesAll, e) {
				return
			}
			e.CallLibrary(commands.ScriptHost(c, false), libName, call, c.W)
		},
		Blocks:  bpopBlocks,
		ACLSubs: aclSubs(),
		ACLSub:  aclSub,
	})
	return nil
}

// clockNow is the server's clock as qless clients send it: unix seconds
// with microseconds.
func clockNow() []byte {
	now := time.Now()
	return strconv.AppendFloat(nil, float64(now.UnixMicro())/1e6, 'f', 6, 64)
}

// aliasFast offers an EVALSHA of a script served natively to the fast
// paths, as a build with the given switches behaves.
func aliasFast(switches int, e *scripts.Engine) scripts.AliasFast {
	return func(h scripts.Host, argv [][]byte, w resp.Writer) bool {
		c, ok := commands.WritableHostCtx(h)
		return ok && runFast(c, w, argv, switches, e)
	}
}
