package commands

import (
	"testing"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

type testSession struct{ db int }

func (s *testSession) ID() int64   { return 1 }
func (s *testSession) DB() int     { return s.db }
func (s *testSession) SetDB(i int) { s.db = i }

// A native library runs commands through ScriptHost in the caller's
// transaction, and its errors come back as "ERR <message>".
func TestCallLibraryThroughScriptHost(t *testing.T) {
	db, err := store.Open(store.Options{Dir: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := scripts.NewEngine(scripts.Options{})
	table := Default()
	RegisterScripting(table, e)
	lib := `return function(cmd, key, val)
  if cmd == 'put' then return redis.call('set', key, val) end
  if cmd == 'get' then return redis.call('get', key) end
  if cmd == 'bad' then return redis.call('get') end
  if cmd == 'ro' then return redis.call('set', key, val) end
  error('Unknown command ' .. cmd)
end`
	if err := e.RegisterLibrary("mini", lib); err != nil {
		t.Fatal(err)
	}
	call := func(write bool, args ...string) resp.Value {
		var rec resp.Recorder
		run := func(tx *store.Tx) error {
			c := &Ctx{Tx: tx, W: &rec, Sess: &testSession{}, Table: table}
			var a [][]byte
			for _, s := range args {
				a = append(a, []byte(s))
			}
			e.CallLibrary(ScriptHost(c, !write), "mini", a, &rec)
			return nil
		}
		if write {
			db.Update(run)
		} else {
			db.View(run)
		}
		return rec.Value()
	}
	for _, c := range []struct {
		write bool
		args  []string
		kind  resp.Kind
		want  string
	}{
		{true, []string{"put", "k", "v"}, resp.Status, "OK"},
		{false, []string{"get", "k"}, resp.Bulk, "v"},
		{false, []string{"bad"}, resp.Error, ErrScriptWrongArgs},
		{false, []string{"ro", "k", "x"}, resp.Error, ErrScriptReadOnly},
		{false, []string{"nope"}, resp.Error, "ERR user_script:6: Unknown command nope"},
	} {
		got := call(c.write, c.args...)
		if got.Kind != c.kind || got.Str != c.want {
			t.Errorf("%v: got %v %q, want %v %q", c.args, got.Kind, got.Str, c.kind, c.want)
		}
	}
}
