package main

import (
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/server"
)

// Every row qlessd serves keeps the trait rules (commands/traits.go):
// Redis's commands, scripting, QLESS and the server's own rows.
func TestCommandTableTraits(t *testing.T) {
	engine := scripts.NewEngine(scripts.Options{})
	table, err := commandTable(engine, true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Dir: t.TempDir()}, table, engine)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, name := range []string{"qless", "monitor", "slowlog", "latency", "debug"} {
		if table.Lookup([]byte(name)) == nil {
			t.Errorf("%s is not in the table", name)
		}
	}
	for _, p := range commands.TraitProblems(table.All()) {
		t.Error(p)
	}
}
