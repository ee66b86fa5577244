package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// httpStatus fetches base+path, with HTTP Basic when pass is set, and
// returns the status and the response's cookies, following no redirect.
func httpStatus(t *testing.T, method, base, path, pass string, form url.Values) (int, []*http.Cookie) {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if pass != "" {
		req.SetBasicAuth("", pass)
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Cookies()
}

// With requirepass set, qlessd's own listener on loopback asks a browser
// to sign in (a wrong password is refused, the right one opens the page
// asked for, sign out ends it) and scripts for HTTP Basic.
func TestDashboardLoginInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--requirepass", "s3cret", "--http-admin", "yes")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Password: "s3cret"})
	defer rdb.Close()
	if err := rdb.Do(context.Background(), "QLESS", "put", "now", "producer", "emails", "jid-1", "K", "{}", 0).Err(); err != nil {
		t.Fatal(err)
	}
	dir := shotDir(t)

	// A page asks for the password first, and comes back after.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/queues/emails"), chromedp.WaitVisible("#login")); err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(loc, "/login?next=%2Fqueues%2Femails") {
		t.Fatalf("the page went to %q (%v), not the login form", loc, err)
	}
	screenshot(t, ctx, dir, "login")
	if err := chromedp.Do(ctx, chromedp.SetValue(`#login input[name="password"]`, "wrong"),
		chromedp.Click("#login button"), chromedp.WaitVisible("#login-error")); err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text("#login-error")); err != nil || msg != "Wrong password." {
		t.Fatalf("a wrong password shows %q (%v)", msg, err)
	}
	screenshot(t, ctx, dir, "login-wrong")
	if err := chromedp.Do(ctx, chromedp.SetValue(`#login input[name="password"]`, "s3cret"),
		chromedp.Click("#login button"), chromedp.WaitVisible("#queue-tabs"), chromedp.WaitVisible("#logout")); err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "/queues/emails") {
		t.Fatalf("signed in at %q (%v)", loc, err)
	}
	// Signed in, the live stream and the API answer the page's scripts.
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#live.on")); err != nil {
		t.Fatal("the signed-in page did not go live: ", err)
	}
	screenshot(t, ctx, dir, "login-signed-in")
	if err := chromedp.Do(ctx, chromedp.Click("#logout"), chromedp.WaitVisible("#login"),
		chromedp.Navigate(base+"/"), chromedp.WaitVisible("#login")); err != nil {
		t.Fatal("after sign out: ", err)
	}

	// Scripts: 401 without the password, 200 with it in HTTP Basic.
	for _, path := range []string{"/api/queues", "/metrics", "/api/jobs/jid-1"} {
		if code, _ := httpStatus(t, "GET", base, path, "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the password: %d, want 401", path, code)
		}
		if code, _ := httpStatus(t, "GET", base, path, "s3cret", nil); code != http.StatusOK {
			t.Errorf("GET %s with HTTP Basic: %d, want 200", path, code)
		}
	}
	// The session cookie: HttpOnly, SameSite=Strict, not Secure over HTTP.
	code, cookies := httpStatus(t, "POST", base, "/login", "", url.Values{"password": {"s3cret"}, "next": {"/failed"}})
	if code != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("login: %d, cookies %v", code, cookies)
	}
	if c := cookies[0]; !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.MaxAge <= 0 || len(c.Value) != 64 {
		t.Fatalf("session cookie %+v", c)
	}
	// A sign-in posted from another site's page is refused.
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader("password=s3cret"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site login: %v %v", res, err)
	}
	t.Logf("screenshots in %s", dir)
}

// Under http-auth loopback-trusted a loopback listener asks nothing, as
// before there was a login.
func TestDashboardLoopbackTrusted(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	_, trusted := StartQlessdHTTP(t, "", "127.0.0.1", "--requirepass", "s3cret", "--http-auth", "loopback-trusted")
	if err := chromedp.Do(ctx, chromedp.Navigate(trusted+"/"), chromedp.WaitVisible("#queue-count")); err != nil {
		t.Fatal("loopback-trusted: ", err)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#logout').length")); err != nil || n != 0 {
		t.Fatalf("loopback-trusted page offers sign out (%d, %v)", n, err)
	}
	for _, path := range []string{"/api/queues", "/metrics"} {
		if code, _ := httpStatus(t, "GET", trusted, path, "", nil); code != http.StatusOK {
			t.Errorf("loopback-trusted GET %s without the password: %d", path, code)
		}
	}
}

// A session ends when requirepass changes; an address that gave 10 wrong
// passwords within a minute gets 429, the right password included.
func TestHTTPLoginSessionsAndGuessing(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--requirepass", "s3cret")
	code, cookies := httpStatus(t, "POST", base, "/login", "", url.Values{"password": {"s3cret"}})
	if code != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("login: %d, cookies %v", code, cookies)
	}
	withCookie := func() (int, string) {
		req, _ := http.NewRequest("GET", base+"/api/queues", nil)
		req.AddCookie(cookies[0])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("WWW-Authenticate")
	}
	if code, _ := withCookie(); code != http.StatusOK {
		t.Fatalf("API with the session cookie: %d", code)
	}
	raw := DialRaw(t, q.Addr)
	raw.Do(t, "AUTH", "s3cret")
	raw.Do(t, "CONFIG", "SET", "requirepass", "other")
	// A script of a page whose session ended gets 401 without a Basic
	// challenge (which would make the browser prompt).
	if code, challenge := withCookie(); code != http.StatusUnauthorized || challenge != "" {
		t.Fatalf("API with a session of the old password: %d %q", code, challenge)
	}
	for i := 0; i < 10; i++ {
		if code, _ := httpStatus(t, "GET", base, "/metrics", "guess", nil); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d", i+1, code)
		}
	}
	if code, _ := httpStatus(t, "GET", base, "/metrics", "other", nil); code != http.StatusTooManyRequests {
		t.Fatalf("after 10 wrong passwords the right one got %d, want 429", code)
	}
	if code, _ := httpStatus(t, "POST", base, "/login", "", url.Values{"password": {"other"}}); code != http.StatusTooManyRequests {
		t.Fatalf("after 10 wrong passwords the login form got %d, want 429", code)
	}
}
