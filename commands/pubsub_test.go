package commands_test

import "testing"

// Pub/sub commands that need no subscribed connection: publishing (to no
// one here) and PUBSUB's introspection; the subscribe commands' argument
// checks. Subscriptions themselves are tested over TCP in tests/.
var pubsubRows = group("pubsub", []row{
	{"PUBLISH ch msg", ":0"},
	{"PUBLISH ch", "-ERR wrong number of arguments for 'publish' command"},
	{"SPUBLISH ch msg", ":0"},
	{"SPUBLISH ch", "-ERR wrong number of arguments for 'spublish' command"},
	{"PUBSUB CHANNELS", "[]"},
	{"PUBSUB CHANNELS ch*", "[]"},
	{"PUBSUB NUMSUB ch other", `["ch" :0 "other" :0]`},
	{"PUBSUB NUMSUB", "[]"},
	{"PUBSUB NUMPAT", ":0"},
	{"PUBSUB SHARDCHANNELS", "[]"},
	{"PUBSUB SHARDNUMSUB ch", `["ch" :0]`},
	{"PUBSUB FOO", "-ERR unknown subcommand 'FOO'. Try PUBSUB HELP."},
	{"PUBSUB NUMPAT x", "-ERR wrong number of arguments for 'pubsub|numpat' command"},
	{"PUBSUB CHANNELS a b", "-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."},
	{"PUBSUB", "-ERR wrong number of arguments for 'pubsub' command"},
	{"SUBSCRIBE", "-ERR wrong number of arguments for 'subscribe' command"},
	{"PSUBSCRIBE", "-ERR wrong number of arguments for 'psubscribe' command"},
	{"SSUBSCRIBE", "-ERR wrong number of arguments for 'ssubscribe' command"},
})

func TestPubSub(t *testing.T) { runRows(t, pubsubRows) }
