package commands

import (
	"runtime"
	"runtime/debug"
)

func registerMemory(t *Table) {
	t.Add(&Cmd{Name: "memory", Arity: -2, Flags: NoTx, Run: cmdMemory})
}

// cmdMemory is MEMORY PURGE|HELP. PURGE collects garbage and returns freed
// pages to the system, so INFO's used_memory then counts live data only
// (Go's heap holds garbage until the collector runs).
func cmdMemory(c *Ctx, args [][]byte) {
	sub := args[1]
	switch {
	case EqualFold(sub, "purge"):
		if len(args) != 2 {
			c.Error(WrongArgs("memory|purge"))
			return
		}
		runtime.GC()
		debug.FreeOSMemory()
		c.OK()
	case EqualFold(sub, "help"):
		if len(args) != 2 {
			c.Error(WrongArgs("memory|help"))
			return
		}
		writeHelp(c, "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"PURGE",
			"    Collect garbage and return free memory to the operating system.")
	default:
		c.Error(Errorf(ErrUnknownSub, string(sub), "MEMORY"))
	}
}
