package qless

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
)

var luaAddress = regexp.MustCompile(`0x[0-9a-f]+`)

// FuzzQlessArgs sends any argument lists to QLESS, one side through the fast
// paths and the other through the Lua library alone: no input may panic,
// every call must reply (a value or an error), and both sides must reply,
// publish and store the same. An input is up to eight calls separated by
// newlines, each call's arguments separated by NUL bytes (the function
// name first). make test runs it for a few seconds; the seed corpus is in
// testdata/fuzz/FuzzQlessArgs.
func FuzzQlessArgs(f *testing.F) {
	// Made once per process and emptied between inputs: building a side (a
	// store, the command table, Lua states running the library) costs far
	// more than a call.
	fast, slow := newDiffSide(f, true), newDiffSide(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func() {
			fast.do(t, "flushall")
			slow.do(t, "flushall")
		}()
		for i, line := range bytes.SplitN(data, []byte("\n"), 8) {
			args := []string{"qless"}
			for _, a := range bytes.SplitN(line, []byte{0}, 40) {
				args = append(args, string(a))
			}
			// "now" for now reads the server's clock, which differs
			// between the two calls.
			if len(args) > 2 && strings.EqualFold(args[2], "now") {
				args[2] = "1763790000"
			}
			got, gotPub := fast.do(t, args...)
			want, wantPub := slow.do(t, args...)
			// Some errors show a table by its address (tostring).
			if got.Kind == resp.Error && want.Kind == resp.Error {
				got.Str = luaAddress.ReplaceAllString(got.Str, "0x?")
				want.Str = luaAddress.ReplaceAllString(want.Str, "0x?")
			}
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotPub, wantPub) {
				t.Fatalf("call %d %q:\nfast: %s %v\nlua:  %s %v", i+1, args[1:], valueText(got), gotPub, valueText(want), wantPub)
			}
		}
		if a, b := fast.dump(t), slow.dump(t); a != b {
			t.Fatalf("keyspaces differ\nfast:\n%s\nlua:\n%s", a, b)
		}
	})
}
