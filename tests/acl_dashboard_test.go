package tests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestACLDashboardReadUser: with --http-user naming a +@qless-read user,
// the dashboard shows jobs without their action buttons and refuses the
// actions' POSTs; an action the user is then allowed appears alone.
func TestACLDashboardReadUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "users.acl")
	writeACLFile(t, file, "user default on nopass ~* &* +@all\nuser reader on +@qless-read\n")
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--aclfile", file, "--http-user", "reader", "--http-admin", "yes")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	for _, call := range [][]any{
		{"QLESS", "put", "now", "w", "q", "j1", "K", "{}", "0"},
		{"QLESS", "pop", "now", "q", "w", "1"},
		{"QLESS", "fail", "now", "j1", "w", "g", "boom", "{}"},
	} {
		if err := rdb.Do(ctx, call...).Err(); err != nil {
			t.Fatalf("%v: %v", call, err)
		}
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	get := func(path string) string {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(get("/api/csrf")), &tok); err != nil {
		t.Fatal(err)
	}
	post := func(path string) (int, string) {
		t.Helper()
		resp, err := client.PostForm(base+path, url.Values{"csrf": {tok.Token}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	page := get("/jobs/j1")
	if !strings.Contains(page, "j1") || !strings.Contains(page, "boom") {
		t.Fatalf("job page does not show j1:\n%s", page)
	}
	for _, action := range []string{"/api/jobs/j1/retry", "/api/jobs/j1/cancel", "/api/jobs/j1/move", "/api/jobs/j1/tag"} {
		if strings.Contains(page, action) {
			t.Errorf("job page offers %s to a read-only user", action)
		}
	}
	if failed := get("/failed"); strings.Contains(failed, "Retry all") || strings.Contains(failed, "Cancel all") {
		t.Errorf("failed page offers group actions to a read-only user")
	}
	for _, action := range []string{"/api/jobs/j1/retry", "/api/jobs/j1/cancel", "/api/failed/g/retry"} {
		if status, body := post(action); status != http.StatusForbidden || !strings.Contains(body, "reader") {
			t.Errorf("POST %s: %d %s", action, status, body)
		}
	}
	if v, err := rdb.Do(ctx, "QLESS", "get", "now", "j1").Text(); err != nil || !strings.Contains(v, `"state":"failed"`) {
		t.Fatalf("j1 after refused actions: %v %v", v, err)
	}

	// Allowed cancel at run time: the cancel button appears, retry does not.
	if err := rdb.Do(ctx, "ACL", "SETUSER", "reader", "+qless|cancel").Err(); err != nil {
		t.Fatal(err)
	}
	page = get("/jobs/j1")
	if !strings.Contains(page, "/api/jobs/j1/cancel") || strings.Contains(page, "/api/jobs/j1/retry") {
		t.Errorf("after +qless|cancel the job page should offer cancel only")
	}
	if status, body := post("/api/jobs/j1/cancel"); status != http.StatusSeeOther && status != http.StatusOK {
		t.Errorf("POST cancel after +qless|cancel: %d %s", status, body)
	}
	if err := rdb.Do(ctx, "QLESS", "get", "now", "j1").Err(); err != redis.Nil {
		t.Errorf("j1 still there after an allowed cancel: %v", err)
	}
}
