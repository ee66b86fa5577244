package dashboard

import "testing"

func TestExceptionLine(t *testing.T) {
	cases := []struct{ name, msg, want string }{
		{"python traceback.format_exc", "Traceback (most recent call last):\n" +
			"  File \"/srv/app/jobs.py\", line 41, in process\n" +
			"    send(job.data['to'])\n" +
			"  File \"/srv/app/mail.py\", line 12, in send\n" +
			"    raise SMTPTimeout('server did not answer in 30s')\n" +
			"mail.SMTPTimeout: server did not answer in 30s\n", "mail.SMTPTimeout: server did not answer in 30s"},
		{"python chained", "Traceback (most recent call last):\n  File \"a.py\", line 2, in f\n    d['k']\nKeyError: 'k'\n\n" +
			"During handling of the above exception, another exception occurred:\n\n" +
			"Traceback (most recent call last):\n  File \"a.py\", line 4, in f\n    raise ValueError('no key')\nValueError: no key\n\n\n",
			"ValueError: no key"},
		{"python crlf and trailing blanks", "Traceback (most recent call last):\r\n  File \"x.py\", line 1, in <module>\r\nZeroDivisionError: division by zero\r\n  \r\n",
			"ZeroDivisionError: division by zero"},
		{"ruby 2.5-2.7 reversed", "Traceback (most recent call last):\n\t2: from job.rb:9:in `<main>'\n\t1: from job.rb:5:in `perform'\njob.rb:2:in `send_mail': timed out (Net::ReadTimeout)",
			"job.rb:2:in `send_mail': timed out (Net::ReadTimeout)"},
		{"qless gem failure formatter", "timed out after 30s\n\n./lib/mailer.rb:12:in `deliver'\n<GEM_HOME>/gems/qless-0.12.0/lib/qless/job.rb:104:in `perform'",
			"timed out after 30s"},
		{"ruby uncaught", "job.rb:12:in `x': undefined method `y' for nil (NoMethodError)\n\tfrom job.rb:20:in `<main>'",
			"job.rb:12:in `x': undefined method `y' for nil (NoMethodError)"},
		{"plain", "Failed to import app.jobs.Mailer", "Failed to import app.jobs.Mailer"},
		{"plain multi-line", "\n  disk full\nwhile writing /tmp/out", "disk full"},
		{"traceback header alone", "Traceback (most recent call last):\n", "Traceback (most recent call last):"},
		{"empty", " \n\n", ""},
	}
	for _, c := range cases {
		if got := exceptionLine(c.msg); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
