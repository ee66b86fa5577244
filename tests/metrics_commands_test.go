package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestMetricsCommandsAndFsync checks the metrics read from the server's
// command statistics: each command's count equals INFO commandstats'
// calls, the duration histogram counts every call, and with appendfsync
// always every write's fsync is in qlessd_fsync_duration_seconds.
func TestMetricsCommandsAndFsync(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--appendfsync", "always")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer rdb.Close()
	ctx := context.Background()
	for i := 0; i < 25; i++ {
		rdb.Set(ctx, "k"+strconv.Itoa(i), "v", 0)
	}
	rdb.Get(ctx, "k1")
	info := rdb.Info(ctx, "commandstats").Val()
	fams := scrape(t, base)
	got := series(fams, "qlessd_commands_total")
	for _, cmd := range []string{"set", "get"} {
		line := infoField(info, "cmdstat_"+cmd)
		calls, _ := strconv.ParseFloat(strings.TrimPrefix(strings.SplitN(line, ",", 2)[0], "calls="), 64)
		if calls == 0 || got["command="+cmd] != calls {
			t.Errorf("qlessd_commands_total{command=%q} = %v, INFO commandstats: %s", cmd, got["command="+cmd], line)
		}
	}
	var total float64
	for _, v := range got {
		total += v
	}
	if h := fams["qlessd_command_duration_seconds"]; h == nil || float64(h.Metric[0].GetHistogram().GetSampleCount()) != total {
		t.Errorf("command duration histogram does not count the calls of qlessd_commands_total's %v: %v", total, h)
	}
	if f := fams["qlessd_fsync_duration_seconds"]; f == nil || f.Metric[0].GetHistogram().GetSampleCount() < 25 {
		t.Errorf("fsyncs after 25 writes with appendfsync always: %v", f)
	}
}
