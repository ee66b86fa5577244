package commands

func registerSets(t *Table) {}
