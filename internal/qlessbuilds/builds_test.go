package qlessbuilds

import "testing"

func TestRedisLoadable(t *testing.T) {
	build := "function table.extend(self, other)\n  x\nend\ntable.extend(jids, more)\n"
	want := "local function table_extend(self, other)\n  x\nend\ntable_extend(jids, more)\n"
	if got := RedisLoadable(build); got != want {
		t.Errorf("RedisLoadable = %q, want %q", got, want)
	}
	if got := RedisLoadable("return 1\n"); got != "return 1\n" {
		t.Errorf("a script without table.extend changed: %q", got)
	}
}
