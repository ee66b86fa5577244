package commands

func registerHashes(t *Table) {}
