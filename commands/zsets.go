package commands

func registerZSets(t *Table) {}
