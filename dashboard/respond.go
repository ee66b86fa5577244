package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
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
	status, msg := errText(err)
	d.fail(w, r, status, msg)
}

func errText(err error) (int, string) {
	var bad badRequest
	var reply redis.Error
	switch {
	case errors.As(err, &bad):
		return http.StatusBadRequest, bad.msg
	case errors.As(err, &reply):
		return http.StatusBadRequest, "qlessd refused it: " + strings.TrimPrefix(reply.Error(), "ERR ")
	default:
		return http.StatusBadGateway, "could not read from qlessd: " + err.Error()
	}
}

// refusal is qless refusing an action, with the jobs that stand in the
// way (the dependents of a job it will not cancel).
type refusal struct {
	err  error
	jobs []string
}

func (e refusal) Error() string { return e.err.Error() }
func (e refusal) Unwrap() error { return e.err }

// maxFlashJobs is how many blocking jobs a refusal's message links.
const maxFlashJobs = 20

// refusedURL is where a page's refused action sends the browser: back to
// the page it came from (field here, else back), with the refusal in the
// query (refused=, job= per blocking job), which the page shows in place.
// It is "" for a caller that is not a page.
func refusedURL(r *http.Request, err error) string {
	to := localPath(r.PostFormValue("here"))
	if to == "" {
		to = localPath(r.PostFormValue("back"))
	}
	if to == "" {
		return ""
	}
	_, msg := errText(err)
	q := url.Values{"refused": {msg}}
	var ref refusal
	if errors.As(err, &ref) {
		q["job"] = atMost(ref.jobs, maxFlashJobs)
	}
	return withQuery(to, q)
}

// withQuery appends q to a local path that may hold a query already.
func withQuery(path string, q url.Values) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + q.Encode()
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
