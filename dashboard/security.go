package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
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
	if err := d.origin.Check(r); err != nil {
		d.fail(w, r, http.StatusForbidden, "refused a cross-origin request: "+err.Error())
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
