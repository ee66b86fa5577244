package scripts

import "github.com/qlessd/qlessd/resp"

// Host runs the commands a script calls. The commands package implements
// it with the caller's context, so a script's commands share the caller's
// transaction; scripts never import commands.
type Host interface {
	// Lookup reports whether a command exists and whether it writes.
	Lookup(name []byte) (known, write bool)
	// Call runs one command line (args[0] is the name) and writes its one
	// reply to w, errors such as an unknown command included.
	Call(args [][]byte, w resp.Writer)
}
