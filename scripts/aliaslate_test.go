package scripts

import "testing"

func TestRaiseLine(t *testing.T) {
	body := "local x = 1\n" +
		"  if not j then\n" +
		"    error('Timeout(): Job ' .. jid .. ' does not exist')\n" +
		"  elseif state ~= 'running' then\n" +
		"    error('Timeout(): Job ' .. jid .. ' not running')\n" +
		"  local v = assert(tonumber(x),\n" +
		"    'Put(): Arg \"delay\" not a number: ' .. tostring(x))\n"
	for _, tc := range []struct {
		msg  string
		line int
	}{
		{"Timeout(): Job j1 does not exist", 3},
		{"Timeout(): Job j1 not running", 5},
		{`Put(): Arg "delay" not a number: soon`, 6},
		{"something else entirely", 1},
	} {
		if got := raiseLine(body, tc.msg); got != tc.line {
			t.Errorf("raiseLine(%q) = %d, want %d", tc.msg, got, tc.line)
		}
	}
}

// An error the library's Lua raised carries the library's position, which
// the reply must not frame a second time, and gopher-lua's wording.
func TestLateMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"user_script:509: bad argument #1 to ipairs (table expected, got string)": "bad argument #1 to 'ipairs' (table expected, got string)",
		"user_script:12: attempt to compare nil with number":                      "attempt to compare nil with number",
		"Timeout(): Job j1 does not exist":                                        "Timeout(): Job j1 does not exist",
	} {
		if got := lateMessage(msg); got != want {
			t.Errorf("lateMessage(%q) = %q, want %q", msg, got, want)
		}
	}
}
