//go:build qlessbuilds

// Opt-in, as TestClientBuilds:
//
//	cd tests && go test -tags qlessbuilds -run TestClientBuildsCron -count=1 .
package tests

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClientBuildsCron: a client's own qless.lua served natively spawns a
// cron recur by its schedule (@daily in Europe/Berlin, across the change
// to summer time), and its recur.get shows qless's keys alone, interval
// the gap between the first two runs.
func TestClientBuildsCron(t *testing.T) {
	t.Parallel()
	builds := clientBuilds(t)
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC)
	for _, b := range builds {
		if err := rdb.ScriptLoad(ctx, b.Stock).Err(); err != nil {
			t.Fatal(err)
		}
		queue, jid := "cron-"+b.Build, "daily-"+b.Build
		if err := rdb.Do(ctx, "QLESS", "recur", from.Unix(), queue, jid, "K", "{}", "cron", "@daily", "Europe/Berlin").Err(); err != nil {
			t.Fatal(err)
		}
		raw, err := rdb.EvalSha(ctx, b.SHA, nil, "recur.get", from.Unix(), jid).Text()
		if err != nil {
			t.Fatalf("%s recur.get: %v", b.Build, err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if r["cron"] != nil || r["next"] != nil || r["interval"] != float64(86400) {
			t.Errorf("%s recur.get: %s", b.Build, raw)
		}
		// Midnights in Berlin: 23:00 UTC before the change, 22:00 after.
		want := []int64{
			time.Date(2026, 3, 28, 0, 0, 0, 0, loc).Unix(),
			time.Date(2026, 3, 29, 0, 0, 0, 0, loc).Unix(),
			time.Date(2026, 3, 30, 0, 0, 0, 0, loc).Unix(),
		}
		now := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC).Unix()
		raw, err = rdb.EvalSha(ctx, b.SHA, nil, "pop", strconv.FormatInt(now, 10), queue, "w", "10").Text()
		if err != nil {
			t.Fatalf("%s pop: %v", b.Build, err)
		}
		var jobs []cronJob
		if err := json.Unmarshal([]byte(raw), &jobs); err != nil {
			t.Fatalf("%s pop: %v: %s", b.Build, err, raw)
		}
		if len(jobs) != len(want) {
			t.Fatalf("%s popped %d jobs, want %d: %s", b.Build, len(jobs), len(want), raw)
		}
		for i, j := range jobs {
			if int64(j.History[0].When) != want[i] {
				t.Errorf("%s job %s put at %v, want %d", b.Build, j.Jid, j.History[0].When, want[i])
			}
		}
	}
}
