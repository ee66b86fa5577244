package qless

// Client libraries ship their own qless.lua, built from some commit of
// qless-core, and call it by EVALSHA. The builds in use differ in a few
// behaviours; each is served by our library and fast paths with switches
// that turn those behaviours on or off. Everything else about a build
// (error texts and their line numbers above all) is left to the build's
// own script: where our code would raise an error before it has written
// anything, the call is handed to that script (scripts.AliasStock).

// Switches name what a build does that another does not. QLESS and our
// printed script do all of it, as qless-core's master does.
const (
	// heartbeat records the worker in ql:workers (qless-core a72cf28 on).
	switchHeartbeatWorker = 1 << iota
	// a retry that exhausts a tracked job's retries publishes its jid on
	// ql:failed (qless-core 485e356, merged before b3f41c8).
	switchRetryFailedEvent

	switchesAll = switchHeartbeatWorker | switchRetryFailedEvent
)

// Profile is one known build of qless.lua.
type Profile struct {
	// SHA is the SHA1 of the script as the binding sends it.
	SHA string
	// Build is the qless-core commit the script was built from.
	Build string
	// Shipped names who sends it, as one word (INFO shows it).
	Shipped  string
	switches int
}

// Profiles are the builds served natively. Each SHA1 is that of the
// script built as its binding builds it: qless-py by qless-core's
// Makefile from its submodule, qless-js likewise, the Ruby gem from its
// committed lib/qless/lua/qless.lua, qless-core master by `make qless.lua`.
var Profiles = []Profile{
	{SHA: "dbf8cd1bf81f9d8ad0ae8aa84860da676603dda4", Build: "13cf415", Shipped: "qless-py-0.11.4"},
	{SHA: "17455f2ef468cdbcd244967efddd3759c91f8217", Build: "a72cf28", Shipped: "qless-js-0.4.9",
		switches: switchHeartbeatWorker},
	{SHA: "ed7cb6988e28750518b1c1f25c98d865dc370952", Build: "35674dc", Shipped: "qless-gem-0.14.0",
		switches: switchesAll},
	{SHA: "165e137277dbf6fbb4b66c3fb2bdb10a471c1db1", Build: "b3f41c8", Shipped: "qless-core-master",
		switches: switchesAll},
}
