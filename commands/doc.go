// Package commands holds the Redis commands qlessd serves and the table
// that describes them; it knows the store and the script engine, not the
// network (package server reads and writes connections and runs what the
// table says).
//
// A command is a row (Cmd in table.go): its name, arity, key positions,
// flags and the function that runs it with a Ctx (ctx.go: the store
// transaction, the reply writer, the calling Session and the server's Env).
// Default builds the table from one register function per command group,
// each in the group's own file (keys.go, strings.go, hashes.go, lists.go,
// sets.go, zsets.go, server.go, memory.go, pubsub.go, connection.go,
// acl.go); scripting.go registers EVAL and SCRIPT with the engine, and
// packages outside (qless, cluster) add their rows the same way.
//
// Where to look:
//   - errors.go: every error text, worded as Redis 7.0 words it.
//   - parse.go: numbers and options parsed as Redis parses them.
//   - config*.go: the one registry of configuration parameters (flags,
//     file, CONFIG GET/SET, --help are all built from it).
//   - acl*.go: users, categories and the permission check.
//   - stats*.go, info*.go: per-command statistics and INFO.
//   - command.go: COMMAND, built from the table.
//
// Each group's tests (<group>_test.go) run its cases in-process over an
// in-memory store with a reply recorder (harness_test.go); tests/ runs the
// started binary against redis-server.
package commands
