package tests

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

// A completed job's page offers no action that would run it again or
// delete it, and the handlers refuse them too.
func TestDashboardCompletedJobActions(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	d.completeAt("q1", "done-1", time.Now().Unix())
	d.qless("put", "producer", "q1", "waits", "K", "{}", 0)

	_, body := d.get("/jobs/waits")
	mustContain(t, "waiting job page", body, `id="cancel"`, "/api/jobs/waits/move", "/api/jobs/waits/priority", "/api/jobs/waits/track")
	_, body = d.get("/jobs/done-1")
	mustContain(t, "completed job page", body, "s-complete", "/api/jobs/done-1/track", "/api/jobs/done-1/tag")
	for _, a := range []string{"cancel", "move", "priority", "retry"} {
		if strings.Contains(body, "/api/jobs/done-1/"+a) {
			t.Fatalf("completed job page offers %s:\n%s", a, body)
		}
	}
	for _, a := range []string{"cancel", "move", "priority", "retry"} {
		code, body := d.post("/api/jobs/done-1/"+a, url.Values{"queue": {"q2"}, "priority": {"5"}})
		if code != http.StatusBadRequest || !strings.Contains(body, "job done-1 is complete: "+a+" is not offered") {
			t.Fatalf("POST %s of a completed job: %d %s", a, code, body)
		}
	}
	if got := d.state("done-1"); got != "complete" {
		t.Fatalf("completed job is now %q", got)
	}
}

// A refused cancel sends the page back to where it was, with qless's
// reason and links to the jobs that depend on the one it would cancel.
func TestDashboardRefusedCancelInPlace(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	d.qless("put", "producer", "q1", "parent", "K", "{}", 0)
	d.qless("put", "producer", "q1", "kid", "K", "{}", 0, "depends", `["parent"]`)
	form := url.Values{"back": {"/queues/q1"}, "here": {"/jobs/parent"}, "csrf": {d.token()}}
	req, _ := http.NewRequest(http.MethodPost, d.srv.URL+"/api/jobs/parent/cancel", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", d.srv.URL)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/jobs/parent?") {
		t.Fatalf("refused cancel: %d to %q", resp.StatusCode, loc)
	}
	if d.state("parent") != "waiting" {
		t.Fatalf("parent is %q", d.state("parent"))
	}
	code, body := d.get(loc)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d", loc, code)
	}
	mustContain(t, "page after a refused cancel", body, `id="refused"`, "is a dependency of kid",
		`<a class="mono" href="/jobs/kid">kid</a>`, `<input type="hidden" name="here" value="/jobs/parent">`)
	// The page's own forms come back to it without the message.
	if strings.Contains(body, `name="back" value="/jobs/parent?`) {
		t.Fatalf("the page's forms keep the refusal:\n%s", body)
	}
	// A cross-origin post is still refused outright, not sent back.
	req, _ = http.NewRequest(http.MethodPost, d.srv.URL+"/api/jobs/parent/cancel", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin cancel: %d", resp.StatusCode)
	}
}
