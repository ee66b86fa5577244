// Package websafe holds the checks the HTTP listener and the dashboard
// share against requests that a page of another site makes a browser send.
package websafe

import (
	"net/http"
	"net/url"
	"strconv"
)

// CrossOrigin says why r may come from another site's page, or "". A
// browser that sends Sec-Fetch-Site says so itself; the Origin a browser
// sends with every POST must then name this listener: a name allowed
// reports as its own, not whatever Host the request carries, which a DNS
// rebinding page sets to its own name. A request without Origin is not
// from a browser's cross-site POST (the CSRF token still applies).
func CrossOrigin(r *http.Request, allowed func(host string) bool) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return "Sec-Fetch-Site is " + site
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "Origin " + strconv.Quote(origin) + " is not a web page's origin"
	}
	if !allowed(u.Host) {
		return "Origin " + strconv.Quote(origin) + " is not a name of this qlessd (http-allowed-hosts)"
	}
	return ""
}
