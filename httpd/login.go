package httpd

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The login form (GET and POST /login) and sign-out (POST /logout), served
// by the listener itself before any mounted handler, so they guard the
// dashboard and /metrics alike. The page uses the dashboard's stylesheet,
// which /static/ serves to anyone (it is the same in every qlessd).

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · qlessd</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
</head>
<body class="login-page">
<main class="login">
<section class="card">
  <h1><span class="logo">q</span> qlessd</h1>
  {{if .Error}}<div class="flash bad" id="login-error" role="alert">{{.Error}}</div>{{end}}
  <form method="post" action="/login" id="login">
    <input type="hidden" name="next" value="{{.Next}}">
    <label>Password <input type="password" name="password" autocomplete="current-password" autofocus required></label>
    <button class="btn primary">Sign in</button>
  </form>
  <p class="muted small">The server's password (requirepass). Scripts give it with HTTP Basic authentication, any user name.</p>
</section>
</main>
</body>
</html>
`))

// serveAuthPages serves /login and /logout, and reports whether r was one.
func (s *Server) serveAuthPages(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.URL.Path == "/login" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.loginForm(w, r, http.StatusOK, "")
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
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return "refused a cross-site request: Sec-Fetch-Site is " + site
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !s.AllowedHost(u.Host) {
		return "refused a cross-site request: Origin " + origin + " is not a name of this qlessd"
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
