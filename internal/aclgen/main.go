// Command aclgen writes commands/acl_redistable.go from a running Redis
// 7.0's COMMAND reply: each command's and subcommand's ACL categories, and
// what its keys need (R when a key spec has ACCESS, W when one inserts,
// deletes or updates, K when it has keys needing neither), and each key
// spec (where its keys are and what is done to them) for the per-key
// checks of %R~ and %W~ patterns, and each subcommand's arity for ACL
// DRYRUN. Run it through go generate in commands/
// with a redis-server 7.0 listening at -addr.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "redis-server 7.0 to read COMMAND from")
	out := flag.String("o", "acl_redistable.go", "file to write")
	flag.Parse()
	rdb := redis.NewClient(&redis.Options{Addr: *addr, Protocol: 2})
	defer rdb.Close()
	v, err := rdb.Do(context.Background(), "COMMAND").Slice()
	if err != nil {
		log.Fatal(err)
	}
	rows := map[string][2]string{}
	specs := map[string]string{}
	for _, c := range v {
		add(rows, specs, c.([]any))
	}
	arities := map[string]int64{}
	for _, c := range v {
		for _, sub := range c.([]any)[9].([]any) {
			e := sub.([]any)
			arities[e[0].(string)] = e[1].(int64)
		}
	}
	var b bytes.Buffer
	b.WriteString("package commands\n\n// Code generated from Redis 7.0's COMMAND reply by internal/aclgen; DO NOT EDIT.\n\n")
	b.WriteString("// redisACL holds, for each Redis 7.0 command and subcommand, its ACL\n")
	b.WriteString("// categories in COMMAND INFO's order and what its keys need: R when a\n")
	b.WriteString("// key spec reads (ACCESS), W when one inserts, deletes or updates, K for\n")
	b.WriteString("// keys that need neither but must match a pattern (\"\": no keys).\n")
	b.WriteString("var redisACL = map[string]struct{ cats, keys string }{\n")
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: {%q, %q},\n", n, rows[n][0], rows[n][1])
	}
	b.WriteString("}\n\n")
	b.WriteString("// redisKeySpecs holds each Redis 7.0 command's key specs, in COMMAND's\n")
	b.WriteString("// order (see aclKeySpec).\n")
	b.WriteString("var redisKeySpecs = map[string][]aclKeySpec{\n")
	names = names[:0]
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: {%s},\n", n, specs[n])
	}
	b.WriteString("}\n\n")
	b.WriteString("// redisSubArity holds each Redis 7.0 subcommand's arity (the command's\n")
	b.WriteString("// name and the subcommand's counted), which ACL DRYRUN checks.\n")
	b.WriteString("var redisSubArity = map[string]int{\n")
	names = names[:0]
	for n := range arities {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: %d,\n", n, arities[n])
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// add records a command (COMMAND's entry: name, ..., categories at 6, key
// specs at 8, subcommands at 9) and its subcommands.
func add(rows map[string][2]string, specs map[string]string, c []any) {
	var cats []string
	for _, x := range c[6].([]any) {
		cats = append(cats, strings.TrimPrefix(x.(string), "@"))
	}
	// Specs flagged NOT_KEY (the shard channels of SPUBLISH, SSUBSCRIBE)
	// name no keys: Redis's ACL does not look at them.
	r, w, anyKey := false, false, false
	for _, spec := range c[8].([]any) {
		flags := strings.ToUpper(fmt.Sprint(pairs(spec)["flags"]))
		if strings.Contains(flags, "NOT_KEY") {
			continue
		}
		anyKey = true
		r = r || strings.Contains(flags, "ACCESS")
		w = w || strings.Contains(flags, "INSERT") || strings.Contains(flags, "DELETE") || strings.Contains(flags, "UPDATE")
	}
	keys := ""
	if r {
		keys += "R"
	}
	if w {
		keys += "W"
	}
	if keys == "" && anyKey {
		keys = "K" // keys that must match a pattern, of either kind
	}
	rows[c[0].(string)] = [2]string{strings.Join(cats, " "), keys}
	var lits []string
	for _, spec := range c[8].([]any) {
		lits = append(lits, specLiteral(pairs(spec)))
	}
	if len(lits) > 0 {
		specs[c[0].(string)] = strings.Join(lits, ", ")
	}
	for _, sub := range c[9].([]any) {
		add(rows, specs, sub.([]any))
	}
}

// pairs reads a RESP2 map (a flat array of names and values).
func pairs(v any) map[string]any {
	m := map[string]any{}
	kv := v.([]any)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func num(m map[string]any, k string) int64 {
	n, _ := m[k].(int64)
	return n
}

// specLiteral writes one key spec as an aclKeySpec literal.
func specLiteral(spec map[string]any) string {
	var fields []string
	write := false
	for _, f := range spec["flags"].([]any) {
		switch strings.ToUpper(f.(string)) {
		case "ACCESS":
			fields = append(fields, "read: true")
		case "INSERT", "DELETE", "UPDATE":
			if !write {
				fields = append(fields, "write: true")
			}
			write = true
		case "NOT_KEY":
			fields = append(fields, "notKey: true")
		case "INCOMPLETE":
			fields = append(fields, "incomplete: true")
		case "VARIABLE_FLAGS":
			fields = append(fields, "variable: true")
		}
	}
	unknown := false
	bs := pairs(spec["begin_search"])
	bspec := pairs(bs["spec"])
	switch bs["type"] {
	case "index":
		fields = append(fields, fmt.Sprintf("begin: %d", num(bspec, "index")))
	case "keyword":
		fields = append(fields, fmt.Sprintf("keyword: %q, begin: %d", bspec["keyword"], num(bspec, "startfrom")))
	default:
		unknown = true
	}
	fk := pairs(spec["find_keys"])
	fspec := pairs(fk["spec"])
	switch fk["type"] {
	case "range":
		fields = append(fields, fmt.Sprintf("last: %d, step: %d, limit: %d",
			num(fspec, "lastkey"), num(fspec, "keystep"), num(fspec, "limit")))
	case "keynum":
		fields = append(fields, fmt.Sprintf("keynum: true, numAt: %d, first: %d, step: %d",
			num(fspec, "keynumidx"), num(fspec, "firstkey"), num(fspec, "keystep")))
	default:
		unknown = true
	}
	if unknown {
		fields = append(fields, "unknown: true")
	}
	return "{" + strings.Join(fields, ", ") + "}"
}
