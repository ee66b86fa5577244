package httpd

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Signing in. With requirepass set, every request gives the password:
// scripts with HTTP Basic (any user name), browsers once through the
// login form (login.go), which sets a session cookie. A loopback listener
// asks nothing only under http-auth loopback-trusted. The password is
// requirepass, the default user's: whoever signs in, the dashboard acts as
// its own user (http-user), so a sign-in grants what that user may do.

const (
	// sessionCookie names the session's cookie.
	sessionCookie = "qlessd_session"
	// sessionLife is how long a sign-in lasts; the cookie lives as long.
	sessionLife = 12 * time.Hour
	// maxSessions caps the sessions kept; the oldest go first.
	maxSessions = 10000
	// failDelay is how long a wrong password waits for its answer, and
	// maxFails how many wrong passwords one address may give per
	// failWindow before every attempt from it gets 429 until the window
	// has passed.
	failDelay  = 500 * time.Millisecond
	maxFails   = 10
	failWindow = time.Minute
)

// session is one sign-in: when it ends, and the password it was made with
// (hashed), so that a new requirepass signs everyone out.
type session struct {
	expires time.Time
	pass    [32]byte
}

// auth keeps the sessions and the failed attempts per address.
type auth struct {
	mu       sync.Mutex
	sessions map[string]session
	fails    map[string][]time.Time
}

func newAuth() *auth {
	return &auth{sessions: map[string]session{}, fails: map[string][]time.Time{}}
}

// password is the password requests must give now, "" for none.
func (s *Server) password() string {
	if s.opts.Password == nil || (!s.guarded && s.opts.TrustLoopback) {
		return ""
	}
	return s.opts.Password()
}

// AsksPassword reports whether requests must give the password when one
// is set: always, but on a loopback listener under loopback-trusted.
func (s *Server) AsksPassword() bool { return s.guarded || !s.opts.TrustLoopback }

// SignedIn reports whether r carries a live session: the dashboard then
// offers to sign out.
func (s *Server) SignedIn(r *http.Request) bool {
	want := s.password()
	return want != "" && s.auth.valid(r, want)
}

// authorized reports whether r may be served: no password is asked, or it
// carries a live session or the password with HTTP Basic. A wrong Basic
// password counts as a failed attempt; status is 429 when r's address
// has failed too often.
func (s *Server) authorized(r *http.Request) (ok bool, status int) {
	want := s.password()
	if want == "" || s.auth.valid(r, want) {
		return true, 0
	}
	_, got, basic := r.BasicAuth()
	if !basic {
		return false, http.StatusUnauthorized
	}
	if s.auth.throttled(r) {
		return false, http.StatusTooManyRequests
	}
	if samePassword(got, want) {
		return true, 0
	}
	s.auth.failed(r)
	return false, http.StatusUnauthorized
}

// samePassword compares in constant time, lengths included: both sides
// are hashed to the same length first.
func samePassword(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

func (a *auth) valid(r *http.Request, want string) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	a.mu.Lock()
	ses, ok := a.sessions[c.Value]
	a.mu.Unlock()
	w := sha256.Sum256([]byte(want))
	return ok && time.Now().Before(ses.expires) && subtle.ConstantTimeCompare(ses.pass[:], w[:]) == 1
}

// start makes a session for the password given and returns its token.
func (a *auth) start(pass string) string {
	b := make([]byte, 32)
	rand.Read(b)
	token := hex.EncodeToString(b)
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) >= maxSessions {
		a.prune(now)
	}
	a.sessions[token] = session{expires: now.Add(sessionLife), pass: sha256.Sum256([]byte(pass))}
	return token
}

// prune drops ended sessions, and the oldest ones while there are still
// too many. Called with mu held.
func (a *auth) prune(now time.Time) {
	for len(a.sessions) >= maxSessions {
		oldest, first := "", now.Add(2*sessionLife)
		for t, s := range a.sessions {
			if !now.Before(s.expires) {
				delete(a.sessions, t)
				continue
			}
			if s.expires.Before(first) {
				oldest, first = t, s.expires
			}
		}
		if len(a.sessions) >= maxSessions {
			delete(a.sessions, oldest)
		}
	}
}

func (a *auth) end(r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
}

// clientAddr is the address failed attempts are counted by.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// throttled reports whether r's address gave maxFails wrong passwords in
// the last failWindow.
func (a *auth) throttled(r *http.Request) bool {
	addr, now := clientAddr(r), time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	recent := a.fails[addr][:0]
	for _, t := range a.fails[addr] {
		if now.Sub(t) < failWindow {
			recent = append(recent, t)
		}
	}
	if len(recent) == 0 {
		delete(a.fails, addr)
		return false
	}
	a.fails[addr] = recent
	return len(recent) >= maxFails
}

// failed counts a wrong password from r's address and makes its answer
// wait failDelay.
func (a *auth) failed(r *http.Request) {
	addr := clientAddr(r)
	a.mu.Lock()
	if len(a.fails) > maxSessions {
		a.fails = map[string][]time.Time{} // a flood of addresses: start over
	}
	a.fails[addr] = append(a.fails[addr], time.Now())
	a.mu.Unlock()
	time.Sleep(failDelay)
}

// refuse answers a request that gave no (right) password: a browser
// asking for a page goes to the login form; others get 401, with a Basic
// challenge unless they carry a session cookie (one that ended: a page's
// script then gets a plain 401 instead of the browser's password prompt).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int) {
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "60")
		http.Error(w, "429 Too Many Requests: too many wrong passwords from this address; wait a minute", status)
		return
	}
	if wantsPage(r) {
		http.Redirect(w, r, "/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	if _, err := r.Cookie(sessionCookie); err != nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="qlessd", charset="UTF-8"`)
	}
	http.Error(w, "401 Unauthorized: sign in at /login, or give requirepass's password with HTTP Basic authentication", http.StatusUnauthorized)
}

// wantsPage reports whether r is a browser asking for a dashboard page
// (not the API, the event stream or the metrics).
func wantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || p == "/events" || strings.HasPrefix(p, "/metrics") {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}
