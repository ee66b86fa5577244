package commands

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/scripts"
)

// Every row of the commands package's table keeps the trait rules
// (traits.go); cmd/qlessd checks the full table, QLESS and the server's
// rows included.
func TestTraits(t *testing.T) {
	table := Default()
	RegisterScripting(table, scripts.NewEngine(scripts.Options{}))
	for _, p := range TraitProblems(table.All()) {
		t.Error(p)
	}
}

// The rules catch a row that breaks them, naming the flags.
func TestTraitProblemsCatchBrokenRows(t *testing.T) {
	for _, c := range []struct {
		cmd  *Cmd
		want string
	}{
		{&Cmd{Name: "x", Flags: StandInAnswers | NoTx}, "x: StandInAnswers without AllowBusy"},
		{&Cmd{Name: "x", Flags: PubSubOK | NoTx}, "x: PubSubOK without SubscribedOK"},
		{&Cmd{Name: "x", Flags: Graduates | Write}, "x: Graduates without NoTx"},
		{&Cmd{Name: "x", Flags: SubscribedOK | NoTx | Write}, "x: SubscribedOK with Write"},
		{&Cmd{Name: "x", Flags: ClosesConn | NoAuth}, "x: ClosesConn without SubscribedOK|RunsInMulti|StandInAnswers"},
		{&Cmd{Name: "client", Flags: NoTx, AdminSubs: []string{"id"}}, "client|id: in AdminSubs"},
		{&Cmd{Name: "x", Flags: Write, ServeKey: serveKeyCounted}, "x: ServeKey without Blocking"},
		{&Cmd{Name: "x", Flags: NoTx, BusyOnlyWith: "kill"}, "x: BusyOnlyWith without AllowBusy"},
		{&Cmd{Name: "x", Flags: Write | NoScript | MonitorFirst | NamesScriptBySHA}, "x: NamesScriptBySHA without RunsClientScript"},
		{&Cmd{Name: "client", Flags: NoTx, AdminSubs: []string{"list"}}, "client: Redis's admin subcommand kill is not in AdminSubs"},
	} {
		got := strings.Join(TraitProblems([]*Cmd{c.cmd}), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.cmd.Name, flagList(c.cmd.Flags), got, c.want)
		}
	}
	// A publishing pubsub command is no subscribe-mode command.
	if p := TraitProblems([]*Cmd{{Name: "publish", Flags: PubSubOK | MayReplicate | NoTx | Loading | Stale | Fast}}); len(p) != 0 {
		t.Errorf("publish: %q", p)
	}
}

// goFlagNames follows the flags' order.
func TestFlagListNames(t *testing.T) {
	for f, want := range map[Flags]string{Write: "Write", AllowBusy: "AllowBusy", MayWrite: "MayWrite",
		SubscribedOK: "SubscribedOK", StandInAnswers: "StandInAnswers", ListedWithSub: "ListedWithSub"} {
		if got := flagList(f); got != want {
			t.Errorf("flagList(%d) = %q, want %q", f, got, want)
		}
	}
	if 1<<(len(goFlagNames)-1) != NamesScriptBySHA {
		t.Errorf("goFlagNames has %d names; NamesScriptBySHA is not the last", len(goFlagNames))
	}
}
