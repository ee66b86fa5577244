package tests

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// usecFields are the figures of INFO commandstats that timing decides.
var usecFields = regexp.MustCompile(`usec=\d+,usec_per_call=[\d.]+,`)

// infoLines returns an INFO section's lines, timings taken out, and the
// named fields of INFO stats.
func infoLines(t *testing.T, r *Raw, section string, only ...string) []string {
	t.Helper()
	raw := r.Do(t, "INFO", section)
	_, body, _ := strings.Cut(raw, "\r\n")
	var out []string
	for _, l := range strings.Split(body, "\r\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if len(only) > 0 {
			keep := false
			for _, o := range only {
				keep = keep || strings.HasPrefix(l, o+":")
			}
			if !keep {
				continue
			}
		}
		out = append(out, usecFields.ReplaceAllString(l, ""))
	}
	sort.Strings(out) // Redis lists commands in its hash table's order
	return out
}

func sameInfo(t *testing.T, p *Pair, section string, only ...string) {
	t.Helper()
	q, r := infoLines(t, p.Q, section, only...), infoLines(t, p.R, section, only...)
	if strings.Join(q, "\n") != strings.Join(r, "\n") {
		t.Errorf("INFO %s differs\nqlessd:\n%s\nredis:\n%s", section, strings.Join(q, "\n"), strings.Join(r, "\n"))
	}
}

// TestObserveCommandStatsSameAsRedis runs calls that succeed, fail while
// running, are refused before running, run inside scripts and MULTI, and
// compares INFO commandstats, errorstats and the stats counters with
// redis-server's (timings aside).
func TestObserveCommandStatsSameAsRedis(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range [][]string{
		{"CONFIG", "RESETSTAT"},
		{"SET", "k", "v"}, {"GET", "k"}, {"GET", "nope"}, {"MGET", "k", "nope", "k"},
		{"EXISTS", "k", "nope"}, {"HGET", "k", "f"}, {"TYPE", "k"}, {"STRLEN", "nope"},
		{"RPUSH", "l", "a", "b"}, {"LRANGE", "l", "0", "-1"}, {"LPOP", "l"},
		{"HSET", "h", "f", "1"}, {"HGETALL", "h"}, {"SADD", "s", "m"}, {"SMEMBERS", "s"},
		{"ZADD", "z", "1", "m"}, {"ZSCORE", "z", "m"}, {"ZRANGE", "z", "0", "-1"},
		{"INCR", "k"}, {"NOSUCH", "x"}, {"GET"}, {"CLIENT", "GETNAME"}, {"CLIENT", "NOSUCH"},
		{"CONFIG", "GET", "maxclients"}, {"CONFIG", "SET", "maxclients", "x"},
		{"EVAL", "return redis.call('incr', KEYS[1])", "1", "k"},
		{"EVAL", "return redis.pcall('incr', KEYS[1])", "1", "k"},
		{"EVAL", "redis.pcall('incr', KEYS[1]); return 1", "1", "k"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "k"},
		{"EVAL", "return redis.error_reply('MY_ERR oops')", "0"},
		{"MULTI"}, {"SET", "m", "1"}, {"INCR", "k"}, {"EXEC"},
		{"MULTI"}, {"GET"}, {"EXEC"},
	} {
		p.Same(t, c...)
	}
	sameInfo(t, p, "commandstats")
	sameInfo(t, p, "errorstats")
	sameInfo(t, p, "stats", "keyspace_hits", "keyspace_misses", "total_error_replies")
	p.Same(t, "CONFIG", "RESETSTAT")
	sameInfo(t, p, "commandstats")
	sameInfo(t, p, "errorstats")
	sameInfo(t, p, "stats", "keyspace_hits", "keyspace_misses", "total_error_replies")
}
