package commands

import "testing"

// BenchmarkACLUnrestricted is what the dispatcher pays per command for a
// user with every permission (the default user as shipped).
func BenchmarkACLUnrestricted(b *testing.B) {
	a := NewACL(Default(), "")
	u := a.Default
	for i := 0; i < b.N; i++ {
		if !u.Unrestricted() {
			b.Fatal("default user restricted")
		}
	}
}

// BenchmarkACLCheckRestricted is a full check of GET for a user with a
// command list and a key pattern.
func BenchmarkACLCheckRestricted(b *testing.B) {
	t := Default()
	a := NewACL(t, "")
	if _, err := a.SetUser(nil, "r", []string{"on", "nopass", "+get", "~foo*"}); err != nil {
		b.Fatal(err)
	}
	u, cmd := a.User("r"), t.Lookup([]byte("get"))
	args := [][]byte{[]byte("GET"), []byte("foo1")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := a.Check(u, cmd, args); !ok {
			b.Fatal("denied")
		}
	}
}
