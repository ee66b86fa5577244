// Package qless holds the qless job-queue API as Lua scripts over qless's
// keyspace, replying as qless-core's qless.lua does, with Go fast paths for
// the hottest calls (docs/qless.md).
//
// Where things are:
//
//   - The API in Lua: lua/*.lua (the definition), loaded and named by
//     script.go; natives.go gives the Lua its Go helpers; functions.go
//     lists the API's functions; command.go registers QLESS; acl.go sorts
//     the functions into read and write.
//   - Client builds served natively: profiles.go (which SHA1 is which
//     build and how the builds differ), stocksites.go (the line numbers
//     of their errors), info.go (INFO qless).
//   - Key names: keys.go builds every ql: key and channel name;
//     queue_names.go and name_cache.go keep a queue's or worker's names
//     made once per name.
//   - Fast paths: fast.go (how a call is run or handed to the Lua),
//     fast_put.go, fast_pop.go, fast_complete.go, fast_heartbeat.go (one
//     API call each, parse → plan → apply), fast_store.go (store access
//     and statistics), fast_json.go and json_order.go (cjson's bytes and
//     key order), fast_stamp.go (job times).
//   - Beyond qless-core: bpop.go and bpop_handback.go (blocking pop),
//     bind.go and rebind.go (workers bound to connections), rates.go
//     (rate limits), cron.go (cron schedules), expiry.go (job TTLs),
//     overview.go (QLESS queues), counters.go (per-queue event counts),
//     loaded.go (counting jobs at start).
package qless
