package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Comparison rules of the qless conformance transcripts (see their README).

// expectedReply is a normalised reply from a transcript.
type expectedReply struct {
	T    string          `json:"t"`
	V    json.RawMessage `json:"v"`
	JSON json.RawMessage `json:"json"`
	Kind string          `json:"kind"`
	Re   string          `json:"re"`
}

var (
	errSuffix = regexp.MustCompile(` script: [0-9a-f]+, on @user_script:\d+\.$`)
	errPos    = regexp.MustCompile(`^user_script:\d+: `)
)

// unframeError removes Redis's script error framing.
func unframeError(msg string) string {
	msg = strings.TrimPrefix(msg, "ERR ")
	msg = errSuffix.ReplaceAllString(msg, "")
	return errPos.ReplaceAllString(msg, "")
}

// compareReply returns "" when actual matches expected, else a description.
func compareReply(exp expectedReply, act respValue, unordered []string) string {
	switch exp.T {
	case "nil":
		if act.Kind == '$' && act.Nil {
			return ""
		}
	case "int":
		var n int64
		if err := json.Unmarshal(exp.V, &n); err != nil {
			return "bad expected int: " + err.Error()
		}
		if act.Kind == ':' && act.Int == n {
			return ""
		}
	case "bulk":
		var s string
		if err := json.Unmarshal(exp.V, &s); err != nil {
			return "bad expected bulk: " + err.Error()
		}
		if act.Kind != '$' || act.Nil {
			break
		}
		if len(exp.JSON) == 0 {
			if act.Str == s {
				return ""
			}
			break
		}
		if d := compareJSONText(exp.JSON, act.Str, unordered); d != "" {
			return fmt.Sprintf("json: %s\n  expected %s\n  actual   %s", d, s, act.Str)
		}
		return ""
	case "arr":
		var elems []expectedReply
		if err := json.Unmarshal(exp.V, &elems); err != nil {
			return "bad expected arr: " + err.Error()
		}
		if act.Kind != '*' || act.Nil || len(act.Elems) != len(elems) {
			break
		}
		for i := range elems {
			if d := compareReply(elems[i], act.Elems[i], nil); d != "" {
				return fmt.Sprintf("element %d: %s", i, d)
			}
		}
		return ""
	case "err":
		var s string
		if err := json.Unmarshal(exp.V, &s); err != nil {
			return "bad expected err: " + err.Error()
		}
		if act.Kind != '-' {
			break
		}
		got := unframeError(act.Str)
		if exp.Re != "" {
			if regexp.MustCompile("^(?:" + exp.Re + ")$").MatchString(got) {
				return ""
			}
			return fmt.Sprintf("error %q does not match /%s/", got, exp.Re)
		}
		if got == s {
			return ""
		}
		return fmt.Sprintf("error %q, expected %q (%s)", got, s, exp.Kind)
	default:
		return "unknown expected type " + exp.T
	}
	return fmt.Sprintf("expected %s %s, got %s", exp.T, string(exp.V), act)
}

// compareJSONText parses actual as a JSON object or array and compares it.
func compareJSONText(expected json.RawMessage, actual string, unordered []string) string {
	var e, a any
	if err := decodeJSON([]byte(expected), &e); err != nil {
		return "bad expected json: " + err.Error()
	}
	if err := decodeJSON([]byte(actual), &a); err != nil {
		return "actual is not JSON: " + err.Error()
	}
	switch a.(type) {
	case map[string]any, []any:
	default:
		return "actual is not a JSON object or array"
	}
	set := map[string]bool{}
	for _, p := range unordered {
		set[p] = true
	}
	return compareJSON(e, a, nil, set)
}

func decodeJSON(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// compareJSON compares parsed values; path holds object keys and "*" for
// array elements, matched against the unordered paths.
func compareJSON(e, a any, path []string, unordered map[string]bool) string {
	where := strings.Join(path, ".")
	switch ev := e.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %q: expected object, got %T", where, a)
		}
		if len(av) != len(ev) {
			return fmt.Sprintf("at %q: object keys %v vs %v", where, keysOf(ev), keysOf(av))
		}
		for k, x := range ev {
			y, ok := av[k]
			if !ok {
				return fmt.Sprintf("at %q: missing key %q", where, k)
			}
			if d := compareJSON(x, y, append(path, k), unordered); d != "" {
				return d
			}
		}
		return ""
	case []any:
		av, ok := a.([]any)
		if !ok {
			return fmt.Sprintf("at %q: expected array, got %T", where, a)
		}
		if len(av) != len(ev) {
			return fmt.Sprintf("at %q: array length %d vs %d", where, len(ev), len(av))
		}
		if unordered[where] {
			ev, av = sortedCopy(ev), sortedCopy(av)
		}
		sub := append(path, "*")
		for i := range ev {
			if d := compareJSON(ev[i], av[i], sub, unordered); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		an, ok := a.(json.Number)
		if !ok {
			return fmt.Sprintf("at %q: expected number %s, got %v", where, ev, a)
		}
		x, err1 := strconv.ParseFloat(string(ev), 64)
		y, err2 := strconv.ParseFloat(string(an), 64)
		if err1 != nil || err2 != nil || x != y {
			return fmt.Sprintf("at %q: number %s vs %s", where, ev, an)
		}
		return ""
	default:
		if e != a {
			return fmt.Sprintf("at %q: %#v vs %#v", where, e, a)
		}
		return ""
	}
}

func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sortedCopy(xs []any) []any {
	type item struct {
		key string
		v   any
	}
	items := make([]item, len(xs))
	for i, x := range xs {
		b, _ := json.Marshal(x)
		items[i] = item{string(b), x}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].key < items[j].key })
	out := make([]any, len(xs))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

// compareEvents compares the pub/sub messages of one step.
func compareEvents(exp [][2]string, act [][2]string) string {
	if len(exp) != len(act) {
		return fmt.Sprintf("%d events, expected %d:\n  expected %q\n  actual   %q", len(act), len(exp), exp, act)
	}
	for i := range exp {
		if exp[i][0] != act[i][0] {
			return fmt.Sprintf("event %d on %q, expected %q", i, act[i][0], exp[i][0])
		}
		if strings.HasPrefix(exp[i][1], "{") {
			if d := compareJSONText(json.RawMessage(exp[i][1]), act[i][1], nil); d != "" {
				return fmt.Sprintf("event %d: %s\n  expected %s\n  actual   %s", i, d, exp[i][1], act[i][1])
			}
		} else if exp[i][1] != act[i][1] {
			return fmt.Sprintf("event %d payload %q, expected %q", i, act[i][1], exp[i][1])
		}
	}
	return ""
}

// keyEntry is one key of a transcript's final keyspace.
type keyEntry struct {
	Type       string          `json:"type"`
	Value      json.RawMessage `json:"value"`
	TTL        bool            `json:"ttl"`
	JSONFields []string        `json:"json_fields"`
	JSONItems  bool            `json:"json_items"`
}

// actualKey is what the server holds for a key.
type actualKey struct {
	Type string
	TTL  bool
	Str  string
	Hash map[string]string
	List []string
	Set  []string
	ZSet [][2]string
}

func parseScore(s string) (float64, error) {
	switch s {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

func sameJSONText(e, a string) bool {
	var x, y any
	if decodeJSON([]byte(e), &x) != nil || decodeJSON([]byte(a), &y) != nil {
		return e == a
	}
	return compareJSON(x, y, nil, nil) == ""
}

// compareKey compares one key's expected entry with the actual value.
func compareKey(name string, e keyEntry, a actualKey) string {
	if e.Type != a.Type {
		return fmt.Sprintf("key %q: type %s, expected %s", name, a.Type, e.Type)
	}
	if e.TTL != a.TTL {
		return fmt.Sprintf("key %q: ttl %v, expected %v", name, a.TTL, e.TTL)
	}
	switch e.Type {
	case "string":
		var s string
		json.Unmarshal(e.Value, &s)
		if s != a.Str {
			return fmt.Sprintf("key %q: %q, expected %q", name, a.Str, s)
		}
	case "hash":
		var h map[string]string
		if err := json.Unmarshal(e.Value, &h); err != nil {
			return fmt.Sprintf("key %q: bad expected hash: %v", name, err)
		}
		jsonField := map[string]bool{}
		for _, f := range e.JSONFields {
			jsonField[f] = true
		}
		for f, v := range h {
			got, ok := a.Hash[f]
			if !ok {
				return fmt.Sprintf("key %q: field %q missing (expected %q)", name, f, v)
			}
			if jsonField[f] {
				if !sameJSONText(v, got) {
					return fmt.Sprintf("key %q: field %q = %s, expected %s", name, f, got, v)
				}
			} else if got != v {
				return fmt.Sprintf("key %q: field %q = %q, expected %q", name, f, got, v)
			}
		}
		for f, v := range a.Hash {
			if _, ok := h[f]; !ok {
				return fmt.Sprintf("key %q: unexpected field %q = %q", name, f, v)
			}
		}
	case "list":
		var l []string
		json.Unmarshal(e.Value, &l)
		if len(l) != len(a.List) {
			return fmt.Sprintf("key %q: list %q, expected %q", name, a.List, l)
		}
		for i := range l {
			if e.JSONItems && !sameJSONText(l[i], a.List[i]) || !e.JSONItems && l[i] != a.List[i] {
				return fmt.Sprintf("key %q: item %d = %s, expected %s", name, i, a.List[i], l[i])
			}
		}
	case "set":
		var s []string
		json.Unmarshal(e.Value, &s)
		got := append([]string(nil), a.Set...)
		sort.Strings(got)
		sort.Strings(s)
		if strings.Join(s, "\x00") != strings.Join(got, "\x00") || len(s) != len(got) {
			return fmt.Sprintf("key %q: set %q, expected %q", name, got, s)
		}
	case "zset":
		var z [][2]string
		json.Unmarshal(e.Value, &z)
		if len(z) != len(a.ZSet) {
			return fmt.Sprintf("key %q: zset %q, expected %q", name, a.ZSet, z)
		}
		for i := range z {
			x, err1 := parseScore(z[i][1])
			y, err2 := parseScore(a.ZSet[i][1])
			if z[i][0] != a.ZSet[i][0] || err1 != nil || err2 != nil || x != y {
				return fmt.Sprintf("key %q: zset %q, expected %q", name, a.ZSet, z)
			}
		}
	default:
		return fmt.Sprintf("key %q: unknown expected type %s", name, e.Type)
	}
	return ""
}
