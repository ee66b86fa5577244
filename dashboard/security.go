package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"

	"github.com/qlessd/qlessd/internal/websafe"
)

func csrfToken(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("qlessd dashboard actions"))
	return hex.EncodeToString(m.Sum(nil))
}

// userName is the ACL user the dashboard logs in as.
func (d *Dashboard) userName() string {
	if d.opts.User == "" {
		return "default"
	}
	return d.opts.User
}

// allowAction checks that a POST may act: the dashboard is in admin mode,
// the request comes from the dashboard's own origin and carries the CSRF
// token (form field csrf or header X-CSRF-Token). It answers the refusal
// itself.
func (d *Dashboard) allowAction(w http.ResponseWriter, r *http.Request) bool {
	if !d.opts.Admin {
		d.fail(w, r, http.StatusForbidden, "the dashboard is read-only: actions need qlessd's --http-admin yes")
		return false
	}
	if reason := d.crossOrigin(r); reason != "" {
		d.fail(w, r, http.StatusForbidden, "refused a cross-origin request: "+reason)
		return false
	}
	token := r.Header.Get("X-CSRF-Token")
	if token == "" {
		token = r.PostFormValue("csrf")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(d.csrf)) != 1 {
		d.fail(w, r, http.StatusForbidden, "missing or wrong CSRF token: reload the page and try again")
		return false
	}
	return true
}

// crossOrigin says why r may come from another site's page, or "". A
// browser that sends Sec-Fetch-Site says so itself; the Origin a browser
// sends with every POST must then name this listener: one of its allowed
// names, not whatever Host the request carries, which a DNS rebinding
// page sets to its own name (the listener refuses such a Host already;
// this holds should the two checks ever part).
func (d *Dashboard) crossOrigin(r *http.Request) string {
	allowed := func(host string) bool { return host == r.Host }
	if d.opts.HostAllowed != nil {
		allowed = d.opts.HostAllowed
	}
	return websafe.CrossOrigin(r, allowed)
}
