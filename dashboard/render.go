package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// pages holds one template set per page, each the layout plus the page.
type pages struct {
	sets map[string]*template.Template
}

var funcs = template.FuncMap{
	"path":          url.PathEscape,
	"num":           num,
	"ago":           ago,
	"utc":           utc,
	"pretty":        prettyJSON,
	"exceptionLine": exceptionLine,
	"fmtnum":        func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) },
	"dict":          dict,
	"plural":        plural,
	"dec":           func(n int) int { return n - 1 },
	"throttleLabel": throttleLabel,
}

func loadPages() (*pages, error) {
	names, err := fs.Glob(assets, "assets/templates/*.html")
	if err != nil {
		return nil, err
	}
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(assets,
		"assets/templates/layout.html", "assets/templates/parts.html"))
	p := &pages{sets: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(n[len("assets/templates/"):], ".html")
		if base == "layout" || base == "parts" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(assets, n)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		p.sets[base] = t
	}
	return p, nil
}

// flashParams are the query parameters an action's redirect adds to say
// how it went (refusedURL); the page's own links leave them out.
var flashParams = []string{"done", "refused", "job"}

// view is what every page's template gets.
type view struct {
	Title string
	Page  string
	Admin bool
	// Can tells, per action (actionFns), whether the page shows it.
	Can  map[string]bool
	CSRF string
	// Here is the page's own path and query, where its forms come back to.
	Here string
	// Done says what the action that led here did; Refused why qless
	// refused it, and RefusedJobs the jobs that stood in the way.
	Done        string
	Refused     string
	RefusedJobs []string
	Data        any
	// SignedIn offers the sign-out button (Options.SignedIn).
	SignedIn bool
}

func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, page, title string, data any) {
	t := d.pages.sets[page]
	here := r.URL.EscapedPath()
	q := r.URL.Query()
	for _, k := range flashParams {
		q.Del(k)
	}
	if len(q) > 0 {
		here += "?" + q.Encode()
	}
	can := d.canMap()
	admin := false
	for _, ok := range can {
		admin = admin || ok
	}
	v := view{Title: title, Page: page, Admin: admin, Can: can, CSRF: d.csrf, Here: here,
		Done: r.URL.Query().Get("done"), Refused: r.URL.Query().Get("refused"), Data: data}
	v.SignedIn = d.opts.SignedIn != nil && d.opts.SignedIn(r)
	if v.Refused != "" {
		v.RefusedJobs = atMost(r.URL.Query()["job"], maxFlashJobs)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		http.Error(w, "qlessd dashboard: page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func staticHandler() http.Handler {
	sub, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		files.ServeHTTP(w, r)
	})
}

func num(v any) string {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1e15 {
			return strconv.FormatFloat(x, 'g', 6, 64)
		}
		n = int64(x)
	default:
		return fmt.Sprint(v)
	}
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func unixTime(t float64) time.Time {
	return time.Unix(0, int64(t*1e9)).UTC()
}

func utc(t float64) string {
	if t <= 0 {
		return "-"
	}
	return unixTime(t).Format("2006-01-02 15:04:05 UTC")
}

func ago(t float64) string {
	if t <= 0 {
		return "-"
	}
	d := time.Since(unixTime(t))
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		s = fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// prettyJSON indents a job's data; data that is not JSON stays as it is.
func prettyJSON(s string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(s), "", "  ") != nil {
		return s
	}
	return out.String()
}

// dict builds a map from key, value pairs for a template to hand a part.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}

// plural is "1 job" or "3 jobs" (the count written as num writes it).
func plural(n any, word string) string {
	s := num(n)
	if s == "1" {
		return s + " " + word
	}
	return s + " " + word + "s"
}
