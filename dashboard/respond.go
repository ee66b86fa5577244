package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// fail answers an error: JSON {"error": msg} to the API, a page to a
// browser.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if isAPI(r) && !wantsRedirect(r) {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	d.render(w, r, status, "error", "Error", map[string]any{"Status": status, "Message": msg})
}

// failErr answers err: a request qless refused is the caller's to fix
// (400, with qless's message); anything else is the server not answering.
func (d *Dashboard) failErr(w http.ResponseWriter, r *http.Request, err error) {
	var bad badRequest
	var reply redis.Error
	switch {
	case errors.As(err, &bad):
		d.fail(w, r, http.StatusBadRequest, bad.msg)
	case errors.As(err, &reply):
		d.fail(w, r, http.StatusBadRequest, "qlessd refused it: "+strings.TrimPrefix(reply.Error(), "ERR "))
	default:
		d.fail(w, r, http.StatusBadGateway, "could not read from qlessd: "+err.Error())
	}
}

// wantsRedirect is true for a form posted by a page, which names the page
// to go back to.
func wantsRedirect(r *http.Request) bool {
	return r.Method == http.MethodPost && localPath(r.PostFormValue("back")) != ""
}

// localPath returns p when it is a path on this site, else "": a posted
// back field must not send the browser elsewhere.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return ""
	}
	return p
}

func quote(s string) string { return strconv.Quote(s) }
