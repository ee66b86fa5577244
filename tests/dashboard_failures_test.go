package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/dashboard"
)

// pyTraceback is a failure message as qless-py's worker stores it
// (traceback.format_exc()).
const pyTraceback = "Traceback (most recent call last):\n" +
	"  File \"/srv/app/jobs.py\", line 41, in process\n" +
	"    send(job.data['to'])\n" +
	"  File \"/srv/app/mail.py\", line 12, in send\n" +
	"    raise SMTPTimeout('server did not answer in 30s')\n" +
	"mail.SMTPTimeout: server did not answer in 30s\n"

// A failure card leads with the exception line of a traceback, and keeps
// the whole text behind the expander.
func TestDashboardFailureExceptionLine(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{})
	d.failJob("mail", "jid-py", `{}`, "mail-SMTPTimeout", pyTraceback)
	d.failJob("mail", "jid-rb", `{}`, "Mailer:Net::ReadTimeout", "timed out after 30s\n\n./lib/mailer.rb:12:in `deliver'")
	for _, c := range []struct{ path, line string }{
		{"/failed/mail-SMTPTimeout", "mail.SMTPTimeout: server did not answer in 30s"},
		{"/jobs/jid-py", "mail.SMTPTimeout: server did not answer in 30s"},
		{"/failed/Mailer:Net::ReadTimeout", "timed out after 30s"},
	} {
		code, body := d.get(c.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", c.path, code, body)
		}
		card := `<div class="failure-msg">` + c.line + `</div>`
		mustContain(t, c.path, body, card, `<pre class="trace">`)
		if strings.Contains(body, `<div class="failure-msg">Traceback`) {
			t.Fatalf("%s: the card shows the traceback's header:\n%s", c.path, body)
		}
	}
	_, body := d.get("/jobs/jid-py")
	mustContain(t, "/jobs/jid-py expander", body, "  File &#34;/srv/app/mail.py&#34;, line 12, in send")
}
