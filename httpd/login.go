package httpd

import (
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/qlessd/qlessd/internal/websafe"
)

// The login form (GET and POST /login) and sign-out (POST /logout), served
// by the listener itself before any mounted handler, so they guard the
// dashboard and /metrics alike. The form has its own small stylesheet
// (/login.css): the dashboard's /static/ is served only once signed in.

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · qlessd</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/login.css">
</head>
<body>
<main>
  <h1><span class="logo">q</span>qlessd</h1>
  {{if .Error}}<div class="error" id="login-error" role="alert">{{.Error}}</div>{{end}}
  <form method="post" action="/login" id="login">
    <input type="hidden" name="next" value="{{.Next}}">
    <label>Password <input type="password" name="password" autocomplete="current-password" autofocus required></label>
    <button>Sign in</button>
  </form>
  <p>The server's password (requirepass). Scripts give it with HTTP Basic authentication, any user name.</p>
</main>
</body>
</html>
`))

// loginCSS is the login form's stylesheet, in the dashboard's colours.
const loginCSS = `* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f8; color: #1d2330; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
main { max-width: 26rem; margin: 12vh auto; background: #fff; border: 1px solid #e3e6ec; border-radius: 10px; padding: 1.4rem 1.6rem; }
h1 { display: flex; align-items: center; gap: .5rem; font-size: 1.3rem; margin: 0 0 1rem; }
.logo { display: inline-grid; place-items: center; width: 26px; height: 26px; border-radius: 7px;
  background: linear-gradient(135deg, #4f8cff, #7b4fd0); color: #fff; font-size: .95rem; }
form { display: grid; gap: .7rem; margin: 1rem 0; }
label { display: grid; gap: .3rem; color: #6b7385; }
input { font: inherit; padding: .45rem .6rem; border: 1px solid #cdd3de; border-radius: 6px; }
button { justify-self: start; font: inherit; padding: .4rem .9rem; border-radius: 6px; border: 1px solid #3565d8;
  background: #3565d8; color: #fff; cursor: pointer; }
.error { background: #fdecec; border: 1px solid #f0b4b4; color: #9b1c1c; padding: .6rem .8rem; border-radius: 8px; }
p { color: #6b7385; font-size: .85rem; margin: 0; }
`

// serveAuthPages serves /login, its stylesheet and /logout, and reports
// whether r was one of them.
func (s *Server) serveAuthPages(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.URL.Path == "/login" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.loginForm(w, r, http.StatusOK, "")
	case r.URL.Path == "/login.css" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		io.WriteString(w, loginCSS)
	case r.URL.Path == "/login" && r.Method == http.MethodPost:
		s.login(w, r)
	case r.URL.Path == "/logout" && r.Method == http.MethodPost:
		if reason := s.crossSite(r); reason != "" {
			http.Error(w, "403 Forbidden: "+reason, http.StatusForbidden)
			return true
		}
		s.auth.end(r)
		http.SetCookie(w, s.cookie("", -1))
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	default:
		return false
	}
	return true
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request, status int, msg string) {
	next := localNext(r.FormValue("next"))
	if s.password() == "" {
		http.Redirect(w, r, next, http.StatusSeeOther) // nothing to sign in to
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	loginPage.Execute(w, map[string]string{"Next": next, "Error": msg})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.loginForm(w, r, http.StatusBadRequest, "Could not read the form.")
		return
	}
	if reason := s.crossSite(r); reason != "" {
		http.Error(w, "403 Forbidden: "+reason, http.StatusForbidden)
		return
	}
	want := s.password()
	if want == "" {
		http.Redirect(w, r, localNext(r.PostFormValue("next")), http.StatusSeeOther)
		return
	}
	if s.auth.throttled(r) {
		w.Header().Set("Retry-After", "60")
		s.loginForm(w, r, http.StatusTooManyRequests, "Too many wrong passwords from this address: wait a minute.")
		return
	}
	if !samePassword(r.PostFormValue("password"), want) {
		s.auth.failed(r)
		s.loginForm(w, r, http.StatusUnauthorized, "Wrong password.")
		return
	}
	http.SetCookie(w, s.cookie(s.auth.start(want), int(sessionLife/time.Second)))
	http.Redirect(w, r, localNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// cookie is the session cookie: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure over HTTPS.
func (s *Server) cookie(token string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.TLS(), SameSite: http.SameSiteStrictMode}
}

// crossSite says why r may come from another site's page, or "": as the
// dashboard's actions, a sign-in or sign-out must come from a page of this
// listener (a page elsewhere could otherwise sign a browser in or out).
func (s *Server) crossSite(r *http.Request) string {
	if reason := websafe.CrossOrigin(r, s.AllowedHost); reason != "" {
		return "refused a cross-site request: " + reason
	}
	return ""
}

// localNext is where a sign-in goes on to: a path on this listener, else /.
func localNext(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") ||
		strings.HasPrefix(p, "/login") {
		return "/"
	}
	return p
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
