package difftest

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Case is one snippet; JSON marks a result that is a JSON text whose object
// key order is unspecified, compared after parsing.
type Case struct {
	Script string
	Argv   []string
	JSON   bool
}

// Run evaluates every case in Redis and in gopher-lua and reports each
// difference. It returns how many cases matched.
func Run(t *testing.T, r *Redis, cases []Case) int {
	t.Helper()
	same := 0
	for _, c := range cases {
		want := r.Eval(t, c.Script, c.Argv...)
		got := Eval(c.Script, c.Argv...)
		if want == got || (c.JSON && canonJSON(want) == canonJSON(got)) {
			same++
			continue
		}
		i := 0
		for i < len(want) && i < len(got) && want[i] == got[i] {
			i++
		}
		from := max(0, i-200)
		t.Errorf("script %q (%d argv)\nfirst difference at byte %d\n redis: ...%s\n   ours: ...%s",
			clip(c.Script, 600), len(c.Argv), i, clip(want[from:], 400), clip(got[from:], 400))
	}
	return same
}

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// canonJSON rewrites every rendered string that holds a JSON object or
// array with sorted object keys, leaving number texts untouched.
func canonJSON(rendered string) string {
	return quoted.ReplaceAllStringFunc(rendered, func(q string) string {
		u, err := strconv.Unquote(q)
		if err != nil || len(u) == 0 || (u[0] != '{' && u[0] != '[') {
			return q
		}
		v, err := parseJSON(u)
		if err != nil {
			return q
		}
		b, err := json.Marshal(v)
		if err != nil {
			return q
		}
		return strconv.Quote(string(b))
	})
}

// parseJSON keeps numbers as their exact text so formatting still counts.
func parseJSON(s string) (interface{}, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v interface{}
	err := d.Decode(&v)
	return v, err
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
