package tests

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// spkiPin is Chromium's pin of a certificate file's public key: the
// base64 SHA-256 of its SubjectPublicKeyInfo, as
// --ignore-certificate-errors-spki-list takes it. The browser then trusts
// that one key, not whatever a server presents.
func spkiPin(t *testing.T, certFile string) string {
	t.Helper()
	b, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatalf("%s holds no PEM block", certFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// With tls-port set, qlessd's own HTTP listener serves the dashboard over
// HTTPS to a browser that holds no client certificate
// (http-tls-auth-clients no, the default, while tls-auth-clients is yes):
// the overview shows the queues, goes live, and a retry through the page
// passes the Origin check over https.
func TestDashboardOverHTTPSInBrowser(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	// qlessd first: the browser's deadline then covers only the browser's work.
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", p.serverArgs(freePort(t))...)
	ctx := browser(t, chromedp.Flag("ignore-certificate-errors-spki-list", spkiPin(t, p.file("server.crt"))))
	base = strings.Replace(base, "http://", "https://", 1)
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	t.Cleanup(func() { rdb.Close() })
	d := &dash{t: t, q: q, rdb: rdb}
	d.failJob("emails", "jid-tls-failed", `{"to":"ops@example.com"}`, "smtp-timeout", "server did not answer")
	d.qless("put", "producer", "reports", "jid-tls-waiting", "Report", `{"month":"2026-11"}`, 0)
	dir := shotDir(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("#queues")); err != nil {
		t.Fatal(err)
	}
	if proto, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.protocol")); err != nil || proto != "https:" {
		t.Fatalf("the page's protocol is %q (%v)", proto, err)
	}
	if shown, want := browserCounts(t, ctx), qlessCounts(t, d); shown != want {
		t.Fatalf("overview over HTTPS shows %s\nQLESS queues: %s", shown, want)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#live.on")); err != nil {
		t.Fatal("the overview did not go live over HTTPS: ", err)
	}
	screenshot(t, ctx, dir, "https-overview")

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs/jid-tls-failed"), chromedp.WaitVisible("#retry")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#retry"), chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal("retry over HTTPS: ", err)
	}
	state, err := chromedp.Run(ctx, chromedp.Text("#job-state"))
	if err != nil || state != "waiting" || d.state("jid-tls-failed") != "waiting" {
		t.Fatalf("after retry the page shows %q (%v), qless says %q", state, err, d.state("jid-tls-failed"))
	}
	screenshot(t, ctx, dir, "https-job-retried")
	t.Logf("screenshots in %s", dir)
}
