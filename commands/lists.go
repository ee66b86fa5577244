package commands

func registerLists(t *Table) {}
