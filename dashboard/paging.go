package dashboard

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
)

const (
	defaultLimit = 25
	maxLimit     = 100
	// maxOffset keeps a page's read within what qless's Lua takes as an
	// exact integer.
	maxOffset = 1 << 40
)

// page is which slice of a list a request asks for (?offset=&limit=).
type page struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// badRequest is an error about the request itself, answered with 400.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func parsePage(r *http.Request) (page, error) {
	p := page{Offset: 0, Limit: defaultLimit}
	if s := r.URL.Query().Get("offset"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxOffset {
			return p, badRequest{fmt.Sprintf("offset must be a whole number from 0 to %d, not %q", maxOffset, s)}
		}
		p.Offset = n
	}
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return p, badRequest{fmt.Sprintf("limit must be a whole number from 1 to %d, not %q", maxLimit, s)}
		}
		p.Limit = n
	}
	return p, nil
}

// pager is what a page's "previous / next" links need.
type pager struct {
	page
	Total int64
	// Shown is how many items this page holds.
	Shown int
	// Query holds the other parameters the page's links keep.
	Query url.Values
}

func (p pager) link(offset int) template.URL {
	q := url.Values{}
	for k, v := range p.Query {
		q[k] = v
	}
	q.Set("offset", strconv.Itoa(offset))
	q.Set("limit", strconv.Itoa(p.Limit))
	return template.URL("?" + q.Encode())
}

func (p pager) PrevURL() template.URL { return p.link(p.PrevOffset()) }
func (p pager) NextURL() template.URL { return p.link(p.NextOffset()) }

func (p pager) From() int { return p.Offset + 1 }
func (p pager) To() int   { return p.Offset + p.Shown }

func (p pager) HasPrev() bool { return p.Offset > 0 }

// HasNext is true when more items follow; with no total known, a full
// page suggests there may be more.
func (p pager) HasNext() bool {
	if p.Total >= 0 {
		return int64(p.Offset+p.Shown) < p.Total
	}
	return p.Shown == p.Limit
}

func (p pager) PrevOffset() int { return max(0, p.Offset-p.Limit) }
func (p pager) NextOffset() int { return p.Offset + p.Limit }

func atMost[T any](l []T, n int) []T { return l[:min(len(l), n)] }
