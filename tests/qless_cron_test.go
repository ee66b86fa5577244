package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// cronJob is what these tests read of a job: its jid and when it was put.
type cronJob struct {
	Jid     string `json:"jid"`
	History []struct {
		When float64 `json:"when"`
		What string  `json:"what"`
	} `json:"history"`
}

// cronPop pops up to 100 jobs of q at now and completes them, so the
// next pop finds only what the recurring job spawns; it returns the
// popped jobs' jids and put times, in pop order.
func cronPop(t *testing.T, rdb *redis.Client, q string, now int64) (jids []string, puts []int64) {
	t.Helper()
	ctx := context.Background()
	at := strconv.FormatInt(now, 10)
	raw, err := rdb.Do(ctx, "QLESS", "pop", at, q, "w", "100").Text()
	if err != nil {
		t.Fatalf("pop at %d: %v", now, err)
	}
	var jobs []cronJob
	if raw != "{}" {
		if err := json.Unmarshal([]byte(raw), &jobs); err != nil {
			t.Fatalf("pop at %d: %v: %s", now, err, raw)
		}
	}
	for _, j := range jobs {
		if len(j.History) == 0 || j.History[0].What != "put" {
			t.Fatalf("job %s has no put first: %+v", j.Jid, j.History)
		}
		jids = append(jids, j.Jid)
		puts = append(puts, int64(j.History[0].When))
		if err := rdb.Do(ctx, "QLESS", "complete", at, j.Jid, "w", q, "{}").Err(); err != nil {
			t.Fatalf("complete %s: %v", j.Jid, err)
		}
	}
	return jids, puts
}

// recurGet is recur.get's object.
func recurGet(t *testing.T, rdb *redis.Client, jid string) map[string]any {
	t.Helper()
	raw, err := rdb.Do(context.Background(), "QLESS", "recur.get", "0", jid).Text()
	if err != nil {
		t.Fatalf("recur.get %s: %v", jid, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("recur.get %s: %v: %s", jid, err, raw)
	}
	return m
}

// berlinWorkRuns lists, in UTC, the instants of `*/15 9-17 * * MON-FRI`
// in Europe/Berlin in (from, to], from the calendar with Go's time
// package alone (no cron parser).
func berlinWorkRuns(t *testing.T, from, to time.Time) []int64 {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	day := from.In(loc)
	for d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc); !d.After(to); d = d.AddDate(0, 0, 1) {
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			continue
		}
		for h := 9; h <= 17; h++ {
			for m := 0; m < 60; m += 15 {
				at := time.Date(d.Year(), d.Month(), d.Day(), h, m, 0, 0, loc)
				if at.After(from) && !at.After(to) {
					out = append(out, at.UTC().Unix())
				}
			}
		}
	}
	return out
}

// TestQlessCronBerlinDST: a recurring job on `*/15 9-17 * * MON-FRI` in
// Europe/Berlin, popped every 50 minutes of a week around the last Sunday
// of March and of October 2026, spawns one job at each run, at the instant
// Berlin's clock shows it (07:00 UTC for 09:00 after the change in March,
// 08:00 before it), and recur.get's next is always the first run to come.
func TestQlessCronBerlinDST(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		from, to time.Time
		anchors  []time.Time // instants that must be among the runs
	}{
		{"march", time.Date(2026, 3, 26, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC),
			[]time.Time{time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC),
				time.Date(2026, 3, 27, 16, 45, 0, 0, time.UTC), time.Date(2026, 3, 30, 15, 45, 0, 0, time.UTC)}},
		{"october", time.Date(2026, 10, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 27, 0, 0, 0, 0, time.UTC),
			[]time.Time{time.Date(2026, 10, 23, 7, 0, 0, 0, time.UTC), time.Date(2026, 10, 26, 8, 0, 0, 0, time.UTC)}},
	} {
		qname, jid := "cron-"+tc.name, "berlin-"+tc.name
		err := rdb.Do(ctx, "QLESS", "recur", strconv.FormatInt(tc.from.Unix(), 10), qname, jid, "Report", "{}",
			"cron", "*/15 9-17 * * MON-FRI", "Europe/Berlin").Err()
		if err != nil {
			t.Fatalf("%s: recur: %v", tc.name, err)
		}
		want := berlinWorkRuns(t, tc.from, tc.to)
		if len(want) != 3*36 {
			t.Fatalf("%s: %d runs computed, want 108 (three working days)", tc.name, len(want))
		}
		var gotJids []string
		var got []int64
		for now := tc.from.Unix(); now <= tc.to.Unix(); now += 50 * 60 {
			jids, puts := cronPop(t, rdb, qname, now)
			gotJids, got = append(gotJids, jids...), append(got, puts...)
			owed := 0
			for _, w := range want {
				if w <= now {
					owed++
				}
			}
			if len(got) != owed {
				t.Fatalf("%s: at %s %d jobs spawned, want %d", tc.name, time.Unix(now, 0).UTC(), len(got), owed)
			}
			if owed < len(want) {
				if next := recurGet(t, rdb, jid)["next"]; next != float64(want[owed]) {
					t.Fatalf("%s: at %s next %v, want %d", tc.name, time.Unix(now, 0).UTC(), next, want[owed])
				}
			}
		}
		for i := range want {
			if got[i] != want[i] || gotJids[i] != fmt.Sprintf("%s-%d", jid, i+1) {
				t.Fatalf("%s: job %d is %s put at %s, want %s-%d at %s", tc.name, i, gotJids[i],
					time.Unix(got[i], 0).UTC(), jid, i+1, time.Unix(want[i], 0).UTC())
			}
		}
		for _, a := range tc.anchors {
			found := false
			for _, g := range got {
				found = found || g == a.Unix()
			}
			if !found {
				t.Errorf("%s: no job at %s", tc.name, a)
			}
		}
	}
}

// TestQlessCronHourly: @hourly spawns every run owed at a pop; with
// backlog 2 only the latest two; recur.get shows the schedule, its next
// run, count and an interval of the gap between runs.
func TestQlessCronHourly(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	hour := func(h int) int64 { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC).Unix() }
	for _, args := range [][]any{
		{"QLESS", "recur", t0.Unix(), "all", "h", "K", "{}", "cron", "@hourly", "UTC"},
		{"QLESS", "recur", t0.Unix(), "late", "b", "K", "{}", "cron", "@hourly", "America/New_York", "backlog", "2", "priority", "3"},
	} {
		if err := rdb.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	r := recurGet(t, rdb, "b")
	for k, v := range map[string]any{"cron": "@hourly", "timezone": "America/New_York", "next": float64(hour(1)),
		"interval": float64(3600), "backlog": float64(2), "priority": float64(3), "count": float64(0), "state": "recur"} {
		if r[k] != v {
			t.Errorf("recur.get b: %s is %v, want %v (%v)", k, r[k], v, r)
		}
	}
	now := hour(5) + 600
	_, puts := cronPop(t, rdb, "all", now)
	if fmt.Sprint(puts) != fmt.Sprint([]int64{hour(1), hour(2), hour(3), hour(4), hour(5)}) {
		t.Errorf("@hourly popped at 05:10 put at %v", puts)
	}
	jids, puts := cronPop(t, rdb, "late", now)
	if fmt.Sprint(puts) != fmt.Sprint([]int64{hour(4), hour(5)}) || fmt.Sprint(jids) != "[b-1 b-2]" {
		t.Errorf("@hourly backlog 2 popped at 05:10 %v put at %v", jids, puts)
	}
	if r := recurGet(t, rdb, "b"); r["next"] != float64(hour(6)) || r["count"] != float64(2) {
		t.Errorf("recur.get b after the pop: %v", r)
	}
	// A recur again on an interval drops the schedule.
	if err := rdb.Do(ctx, "QLESS", "recur", now, "late", "b", "K", "{}", "interval", "60", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if r := recurGet(t, rdb, "b"); r["cron"] != nil || r["timezone"] != nil || r["next"] != nil || r["interval"] != float64(60) {
		t.Errorf("recur.get b on an interval: %v", r)
	}
	if n, _ := rdb.HExists(ctx, "ql:r:b", "cron").Result(); n {
		t.Error("ql:r:b keeps its cron field")
	}
}

// TestQlessCronRefused: a bad expression or timezone is refused with an
// error naming it, and nothing is written: not a new recurring job, not a
// change to an existing one. recur.update refuses interval for a cron
// recur. The printed script on Redis refuses cron.
func TestQlessCronRefused(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Do(ctx, "QLESS", "recur", "1700000000", "q", "keep", "K", "{}", "cron", "0 9 * * *", "UTC").Err(); err != nil {
		t.Fatal(err)
	}
	conn := dialResp(t, q.Addr)
	before := readKeyspace(t, conn)
	recur := func(jid string, sched ...string) []any {
		return append([]any{"QLESS", "recur", "1700000100", "q", jid, "K", "{}", "cron"}, cronArgs(sched)...)
	}
	for _, c := range []struct {
		args []any
		want string
	}{
		{recur("new", "*/15 9-17 * * MON-FRX", "Europe/Berlin"),
			`Recur(): Arg "cron" not a cron expression (failed to parse int from FRX: strconv.Atoi: parsing "FRX": invalid syntax): */15 9-17 * * MON-FRX`},
		{recur("keep", "61 * * * *", "UTC"),
			`Recur(): Arg "cron" not a cron expression (end of range (61) above maximum (59): 61): 61 * * * *`},
		{recur("new", "* * * *", "UTC"),
			`Recur(): Arg "cron" not a cron expression (expected exactly 5 fields, found 4: [* * * *]): * * * *`},
		{recur("keep", "@hourly", "Europe/Berln"), `Recur(): Arg "timezone" unknown: Europe/Berln`},
		{recur("new", "@hourly", "Local"), `Recur(): Arg "timezone" unknown: Local`},
		// Without a timezone cron is qless's unknown schedule type, as in
		// the conformance transcripts.
		{recur("new", "@hourly"), `Recur(): schedule type "cron" unknown`},
		{recur("new"), `Recur(): schedule type "cron" unknown`},
		{recur("new", "@every 1h", "UTC"), `Recur(): Arg "cron" @every is not a calendar schedule; use interval: @every 1h`},
		{recur("new", "TZ=UTC 0 9 * * *", "UTC"),
			`Recur(): Arg "cron" must not name a timezone; the timezone is its own argument: TZ=UTC 0 9 * * *`},
		{recur("new", "0 0 30 2 *", "UTC"), `Recur(): Arg "cron" never matches: 0 0 30 2 *`},
		{recur("keep", "@hourly", "UTC", "priority", "x"), `Recur(): Arg "priority" not a number: x`},
		{[]any{"QLESS", "recur.update", "1700000100", "keep", "priority", "5", "interval", "60"},
			`Recur(): Arg "interval" does not apply to recurring job keep on a cron schedule; recur it again to change its schedule`},
	} {
		err := rdb.Do(ctx, c.args...).Err()
		if err == nil || err.Error() != "ERR "+c.want {
			t.Errorf("%v: got %v, want ERR %s", c.args, err, c.want)
		}
		if d := diffKeyspaces(readKeyspace(t, conn), before); d != "" {
			t.Fatalf("%v wrote: %s", c.args, d)
		}
	}

	redisProc := StartRedis(t)
	rr := redis.NewClient(&redis.Options{Addr: redisProc.Addr})
	defer rr.Close()
	script, err := exec.Command(binary(t), "script").Output()
	if err != nil {
		t.Fatal(err)
	}
	err = rr.Eval(ctx, string(script), nil, "recur", "1700000000", "q", "r", "K", "{}", "cron", "@hourly", "UTC").Err()
	want := `Recur(): schedule type "cron" needs qlessd: a script on Redis has no cron parser`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("printed script on Redis: %v, want an error with %q", err, want)
	}
	if n, _ := rr.DBSize(ctx).Result(); n != 0 {
		t.Errorf("printed script on Redis wrote %d keys", n)
	}
}

func cronArgs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// A paused cron recur spawns nothing; resumed, its next run is its
// schedule's next one after now (not the paused run plus multiples of the
// stored interval, which a schedule like MON-FRI 09:00 does not keep).
func TestQlessCronPauseResume(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// Friday 2 January 2026, 08:00 in Berlin.
	t0 := time.Date(2026, 1, 2, 8, 0, 0, 0, berlin)
	if err := rdb.Do(ctx, "QLESS", "recur", t0.Unix(), "q", "w", "K", "{}", "cron", "0 9 * * MON-FRI", "Europe/Berlin").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Do(ctx, "QLESS", "recur.pause", t0.Unix(), "w").Err(); err != nil {
		t.Fatal(err)
	}
	// Paused over the weekend: Monday 5 January, 10:30 pops nothing.
	monday := time.Date(2026, 1, 5, 10, 30, 0, 0, berlin)
	if jids, _ := cronPop(t, rdb, "q", monday.Unix()); len(jids) != 0 {
		t.Fatalf("a paused cron recur spawned %v", jids)
	}
	if err := rdb.Do(ctx, "QLESS", "recur.resume", monday.Unix(), "w").Err(); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 6, 9, 0, 0, 0, berlin).Unix() // Tuesday 09:00
	if r := recurGet(t, rdb, "w"); r["next"] != float64(want) {
		t.Errorf("resumed on Monday 10:30: next %v, want Tuesday 09:00 (%d)", r["next"], want)
	}
	if s, _ := rdb.ZScore(ctx, "ql:q:q-recur", "w").Result(); int64(s) != want {
		t.Errorf("resumed: score in ql:q:q-recur %v, want %d", s, want)
	}
}
