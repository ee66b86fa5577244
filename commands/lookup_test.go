package commands

import "testing"

// Command names match ignoring ASCII case only, as Redis's strcasecmp does,
// and looking one up allocates nothing.
func TestLookupIgnoresASCIICase(t *testing.T) {
	tab := Default()
	for _, name := range []string{"get", "GET", "gEt", "ZREVRANGEBYSCORE"} {
		if c := tab.Lookup([]byte(name)); c == nil {
			t.Errorf("%s: not found", name)
		}
	}
	for _, name := range []string{"\u212aeys", "getx", "", "averyveryverylongcommandnamethatisnothing"} {
		if c := tab.Lookup([]byte(name)); c != nil {
			t.Errorf("%q found %s", name, c.Name)
		}
	}
	name := []byte("ZADD")
	if n := testing.AllocsPerRun(100, func() { tab.Lookup(name) }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}
