package commands

import (
	"strings"
	"testing"
)

// Redis 7.0's test of whether ACL SETUSER took channels away, and the
// grant the user's subscribers are then checked against.
func TestChannelsRevoked(t *testing.T) {
	for _, c := range []struct {
		old, cur string
		revoked  bool
		grant    string
	}{
		{"&a &b", "&a &b &c", false, ""},
		{"&a &b", "resetchannels &b", true, "b"},
		{"&*", "resetchannels &a", true, "a"},
		{"&a", "&*", false, ""},
		{"&a", "resetchannels (+get &a)", false, ""},
		{"&a (+get &b)", "resetchannels &a &b", false, ""},
		{"&c*", "resetchannels &c1 &c**", true, "c1 c**"},
		{"&a", "resetchannels (+get &*)", false, ""},
	} {
		a := NewACL(Default(), "")
		var revoked bool
		var grant ChannelGrant
		a.OnRevoke = func(_ Session, _ *User, g ChannelGrant) { revoked, grant = true, g }
		if _, err := a.SetUser(nil, "u", append([]string{"on", "resetchannels"}, splitRules(c.old)...)); err != nil {
			t.Fatal(err)
		}
		if revoked {
			t.Fatalf("%q: a new user revoked channels", c.old)
		}
		if _, err := a.SetUser(nil, "u", splitRules(c.cur)); err != nil {
			t.Fatal(err)
		}
		if revoked != c.revoked || strings.Join(grant, " ") != c.grant {
			t.Errorf("%q then %q: revoked %v grant %q, want %v %q", c.old, c.cur, revoked, grant, c.revoked, c.grant)
		}
	}
}

func splitRules(s string) []string {
	rules, _, _ := mergeSelectorArgs(strings.Fields(s))
	return rules
}

func TestMaySubscribe(t *testing.T) {
	a := NewACL(Default(), "")
	if _, err := a.SetUser(nil, "u", []string{"on", "&news.*", "(+get &x)"}); err != nil {
		t.Fatal(err)
	}
	u := a.User("u")
	for _, c := range []struct {
		pattern bool
		names   string
		want    bool
	}{
		{false, "news.1 news.2", true},
		{false, "x", true},
		{false, "news.1 x", false}, // no one selector grants both
		{true, "news.*", true},
		{true, "news.1*", false},
		{false, "other", false},
	} {
		var names [][]byte
		for _, n := range strings.Fields(c.names) {
			names = append(names, []byte(n))
		}
		if got := u.MaySubscribe(c.pattern, names); got != c.want {
			t.Errorf("MaySubscribe(%v, %q) = %v", c.pattern, c.names, got)
		}
	}
	if !a.Default.MaySubscribe(false, [][]byte{[]byte("any")}) {
		t.Error("default user may not subscribe")
	}
}
