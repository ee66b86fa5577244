package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// ratedCount is what QLESS queues, /metrics and INFO qless say of the
// waiting jobs of queue mail held back by a rate.
func ratedCount(t *testing.T, rdb *redis.Client, base string) (queues, metric float64, info string) {
	t.Helper()
	var counts map[string]any
	if err := json.Unmarshal([]byte(qlessCall(t, rdb, "queues", "mail")), &counts); err != nil {
		t.Fatal(err)
	}
	queues, _ = counts["rated"].(float64) // named only when there are some
	metric = series(scrape(t, base), "qlessd_queue_jobs")["queue=mail,state=rated"]
	info = infoField(rdb.Info(context.Background(), "qless").Val(), "jobs_rated")
	return queues, metric, info
}

// TestDashboardRatedJobs: waiting jobs a queue's rate holds back are
// counted alike by QLESS queues, /metrics and INFO qless, listed in line
// order by QLESS jobs rated, the API and the queue page's rated tab, and
// counted no more once the rate is deleted.
func TestDashboardRatedJobs(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()

	qlessCall(t, rdb, "rate.set", "ql:q:mail", 1, 3600)
	for i := 1; i <= 3; i++ {
		qlessCall(t, rdb, "put", "producer", "mail", fmt.Sprintf("m%d", i), "SendMail", "{}", 0)
	}
	if got := qlessCall(t, rdb, "pop", "mail", "worker-1", 10); !strings.Contains(got, `"jid":"m1"`) || strings.Contains(got, `"m2"`) {
		t.Fatalf("pop under a rate of 1: %s", got)
	}
	if qc, metric, info := ratedCount(t, rdb, base); qc != 2 || metric != 2 || info != "2" {
		t.Fatalf("rated jobs: QLESS queues %v, qlessd_queue_jobs %v, INFO jobs_rated %q", qc, metric, info)
	}
	if got := qlessCall(t, rdb, "jobs", "rated", "mail"); got != `["m2","m3"]` {
		t.Fatalf("jobs rated: %s", got)
	}
	var api struct {
		Total int64
		Jobs  []struct{ Jid string }
	}
	if err := json.Unmarshal([]byte(httpGet(t, base, "/api/queues/mail/jobs?state=rated")), &api); err != nil {
		t.Fatal(err)
	}
	if api.Total != 2 || len(api.Jobs) != 2 || api.Jobs[0].Jid != "m2" || api.Jobs[1].Jid != "m3" {
		t.Fatalf("API rated jobs: %+v", api)
	}
	page := httpGet(t, base, "/queues/mail?state=rated")
	if !strings.Contains(page, `data-tab-count="rated">2<`) || !strings.Contains(page, "/jobs/m2") || !strings.Contains(page, "/jobs/m3") {
		t.Fatalf("queue page's rated tab lacks its count or jobs:\n%s", page)
	}

	qlessCall(t, rdb, "rate.delete", "ql:q:mail")
	if qc, metric, info := ratedCount(t, rdb, base); qc != 0 || metric != 0 || info != "0" {
		t.Fatalf("after the rate went: QLESS queues %v, qlessd_queue_jobs %v, INFO jobs_rated %q", qc, metric, info)
	}
	if got := qlessCall(t, rdb, "queues", "mail"); strings.Contains(got, "rated") {
		t.Fatalf("QLESS queues names rated with none held: %s", got)
	}
}
