package qless

import (
	"strconv"
	"strings"
	"testing"
)

// The Go fast paths hand a list past ListMax to the Lua, which refuses it:
// both must name the same number.
func TestListMaxMatchesLua(t *testing.T) {
	const decl = "local LIST_MAX = "
	lib := Library()
	i := strings.Index(lib, decl)
	if i < 0 {
		t.Fatalf("library declares no %q", decl)
	}
	rest := lib[i+len(decl):]
	n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '\n')])
	if err != nil || n != ListMax {
		t.Fatalf("Lua LIST_MAX %q, Go ListMax %d", rest[:strings.IndexByte(rest, '\n')], ListMax)
	}
}

// A list past ListMax is refused by QLESS, on the fast path's side too,
// before anything is written; a client's own build takes it, as on Redis.
func TestListMaxRefusesOnlyOurCalls(t *testing.T) {
	tags := make([]string, ListMax+1)
	for i := range tags {
		tags[i] = `"t` + strconv.Itoa(i) + `"`
	}
	over := "[" + strings.Join(tags, ",") + "]"
	for _, fast := range []bool{true, false} {
		s := newDiffSide(t, fast)
		sha := s.aliasStandIn(t, switchesAll)
		s.do(t, "qless", "put", "100", "w", "q", "j1", "K", "{}", "0", "tags", `["a"]`)
		before := s.dump(t)
		for _, jid := range []string{"j1", "j2"} {
			v, _ := s.do(t, "qless", "put", "101", "w", "q", jid, "K", "{}", "0", "tags", over)
			want := `ERR Put(): Arg "tags" has more than ` + strconv.Itoa(ListMax) + " entries: " + strconv.Itoa(ListMax+1)
			if v.Str != want {
				t.Errorf("fast=%v: QLESS put %s with %d tags replied %q, want %q", fast, jid, ListMax+1, v.Str, want)
			}
		}
		if after := s.dump(t); after != before {
			t.Errorf("fast=%v: a refused put changed the keyspace", fast)
		}
		if v, _ := s.do(t, "evalsha", sha, "0", "put", "102", "w", "q", "j2", "K", "{}", "0", "tags", over); v.Str != "j2" {
			t.Errorf("fast=%v: a client's build put with %d tags replied %q, want j2", fast, ListMax+1, v.Str)
		}
	}
}
