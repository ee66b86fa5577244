package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/qless"
)

// TestQlessConformance replays the recorded qless transcripts
// (testdata/qless-conformance) against each enabled target and reports the
// first difference of each scenario as a subtest failure.
//
// Targets, chosen with QLESS_CONFORMANCE_TARGETS (comma separated):
//   - redis:        EVALSHA of qless.Script() on a real redis-server
//   - qlessd:       the native QLESS <fn> <now> <args...> command on qlessd
//   - qlessd-eval:  EVALSHA of qless.Script() on qlessd
//
// All three run by default, under the transcripts' strict rules.
func TestQlessConformance(t *testing.T) {
	t.Parallel()
	files := conformanceFiles(t)
	for _, target := range conformanceTargets() {
		t.Run(target, func(t *testing.T) {
			t.Parallel() // each target is a server of its own
			sender := startConformanceTarget(t, target)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".json")
				t.Run(name, func(t *testing.T) {
					sc := loadScenario(t, f)
					if d := replayScenario(t, sender, sc); d != "" {
						t.Error(d)
					}
				})
			}
		})
	}
}

// defaultConformanceTargets are replayed when QLESS_CONFORMANCE_TARGETS is
// unset.
var defaultConformanceTargets = []string{"redis", "qlessd", "qlessd-eval"}

func conformanceTargets() []string {
	env := os.Getenv("QLESS_CONFORMANCE_TARGETS")
	if env == "" {
		return defaultConformanceTargets
	}
	var out []string
	for _, s := range strings.Split(env, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func conformanceFiles(t *testing.T) []string {
	dir := os.Getenv("QLESS_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "qless-conformance")
	}
	files, err := filepath.Glob(filepath.Join(dir, "scenarios", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scenarios under %s (set QLESS_CONFORMANCE_DIR)", dir)
	}
	sort.Strings(files)
	if only := os.Getenv("QLESS_CONFORMANCE_ONLY"); only != "" {
		var keep []string
		for _, f := range files {
			if strings.Contains(filepath.Base(f), only) {
				keep = append(keep, f)
			}
		}
		files = keep
	}
	return files
}

// conformanceSender sends one API call; a and b are the command and the
// subscriber connections.
type conformanceSender struct {
	a, b *respConn
	call func(fn, now string, args []string) (respValue, error)
}

func startConformanceTarget(t *testing.T, target string) *conformanceSender {
	var addr string
	switch target {
	case "redis":
		addr = StartRedis(t).Addr
	case "qlessd", "qlessd-eval":
		addr = StartQlessd(t, "").Addr
	default:
		t.Fatalf("unknown conformance target %q", target)
	}
	s := &conformanceSender{a: dialResp(t, addr), b: dialResp(t, addr)}
	if target == "qlessd" {
		s.call = func(fn, now string, args []string) (respValue, error) {
			return s.a.do(append([]string{"QLESS", fn, now}, args...)...)
		}
	} else {
		v, err := s.a.do("SCRIPT", "LOAD", qless.Script())
		if err != nil || v.Kind != '$' || v.Str != qless.SHA() {
			t.Fatalf("SCRIPT LOAD: %v %v (want sha %s)", v, err, qless.SHA())
		}
		s.call = func(fn, now string, args []string) (respValue, error) {
			return s.a.do(append([]string{"EVALSHA", qless.SHA(), "0", fn, now}, args...)...)
		}
	}
	v, err := s.b.do("PSUBSCRIBE", "*")
	if err != nil || v.Kind != '*' {
		t.Fatalf("PSUBSCRIBE: %v %v", v, err)
	}
	return s
}

type scenarioStep struct {
	Fn        string        `json:"fn"`
	Now       string        `json:"now"`
	Args      []string      `json:"args"`
	Reply     expectedReply `json:"reply"`
	Events    [][2]string   `json:"events"`
	Unordered []string      `json:"unordered"`
}

type qlessScenario struct {
	Name     string              `json:"name"`
	Steps    []scenarioStep      `json:"steps"`
	Keyspace map[string]keyEntry `json:"keyspace"`
}

func loadScenario(t *testing.T, path string) *qlessScenario {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc qlessScenario
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &sc
}

var tokenSeq int

// sync publishes a private token and returns every message that arrived on
// the subscriber before it.
func (s *conformanceSender) sync() ([][2]string, error) {
	tokenSeq++
	token := "tok-" + strconv.Itoa(tokenSeq)
	if _, err := s.a.do("PUBLISH", "conformance-sync", token); err != nil {
		return nil, err
	}
	var events [][2]string
	for {
		m, err := s.b.read()
		if err != nil {
			return nil, err
		}
		if m.Kind != '*' || len(m.Elems) != 4 || m.Elems[0].Str != "pmessage" {
			return nil, fmt.Errorf("unexpected subscriber message %v", m)
		}
		ch, payload := m.Elems[2].Str, m.Elems[3].Str
		if ch == "conformance-sync" && payload == token {
			return events, nil
		}
		events = append(events, [2]string{ch, payload})
	}
}

func replayScenario(t *testing.T, s *conformanceSender, sc *qlessScenario) string {
	if _, err := s.a.do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.sync(); err != nil {
		t.Fatal(err)
	}
	for i, st := range sc.Steps {
		reply, err := s.call(st.Fn, st.Now, st.Args)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		events, err := s.sync()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		what := fmt.Sprintf("step %d: %s %s %q", i, st.Fn, st.Now, st.Args)
		if d := compareReply(st.Reply, reply, st.Unordered); d != "" {
			return what + ": reply: " + d
		}
		if d := compareEvents(st.Events, events); d != "" {
			return what + ": events: " + d
		}
	}
	return compareKeyspace(t, s.a, sc.Keyspace)
}

func compareKeyspace(t *testing.T, c *respConn, exp map[string]keyEntry) string {
	keys, err := c.do("KEYS", "*")
	if err != nil {
		t.Fatal(err)
	}
	actual := map[string]bool{}
	var names []string
	for _, k := range keys.Elems {
		actual[k.Str] = true
		names = append(names, k.Str)
	}
	sort.Strings(names)
	for name := range exp {
		if !actual[name] {
			return fmt.Sprintf("keyspace: key %q missing", name)
		}
	}
	for _, name := range names {
		e, ok := exp[name]
		if !ok {
			return fmt.Sprintf("keyspace: unexpected key %q", name)
		}
		a := readKey(t, c, name)
		if d := compareKey(name, e, a); d != "" {
			return "keyspace: " + d
		}
	}
	return ""
}

func readKey(t *testing.T, c *respConn, name string) actualKey {
	must := func(args ...string) respValue {
		v, err := c.do(args...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var a actualKey
	a.Type = must("TYPE", name).Str
	a.TTL = must("PTTL", name).Int >= 0
	switch a.Type {
	case "string":
		a.Str = must("GET", name).Str
	case "hash":
		v := must("HGETALL", name)
		a.Hash = map[string]string{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			a.Hash[v.Elems[i].Str] = v.Elems[i+1].Str
		}
	case "list":
		for _, e := range must("LRANGE", name, "0", "-1").Elems {
			a.List = append(a.List, e.Str)
		}
	case "set":
		for _, e := range must("SMEMBERS", name).Elems {
			a.Set = append(a.Set, e.Str)
		}
	case "zset":
		v := must("ZRANGE", name, "0", "-1", "WITHSCORES")
		for i := 0; i+1 < len(v.Elems); i += 2 {
			a.ZSet = append(a.ZSet, [2]string{v.Elems[i].Str, v.Elems[i+1].Str})
		}
	}
	return a
}
