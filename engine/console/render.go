package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// page is what every template gets.
type page struct {
	Title string
	Nav   string // the navigation entry to mark current
	CSRF  string
	Error string // shown in an alert
	Data  any
}

// pageNames are the templates, each rendered inside layout.html.
var pageNames = []string{"login", "overview", "infraenvs", "hosts", "host", "clusters", "cluster", "bmhs"}

var funcs = template.FuncMap{
	"lower": strings.ToLower,
	// when is an API time as the page shows it (UTC, to the second), and
	// iso the same for a <time datetime>.
	"when": func(t models.DateTime) string {
		if t.IsZero() {
			return "–"
		}
		return t.Time().UTC().Format("2006-01-02 15:04:05")
	},
	"gib": bytesText,
	"iso": func(t models.DateTime) string { return t.Time().UTC().Format(time.RFC3339) },
	"short": func(id string) string {
		if len(id) > 8 {
			return id[:8]
		}
		return id
	},
}

// parsePages parses layout.html with each page.
func parsePages() (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes page name with status code.
func (c *Console) render(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	var buf bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		c.log.ErrorContext(r.Context(), "console: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// fail shows the page with the API's refusal (or another error).
func (c *Console) fail(w http.ResponseWriter, r *http.Request, ss session, err error) {
	c.log.WarnContext(r.Context(), "console: request failed", "path", r.URL.Path, "err", err)
	c.render(w, r, statusOf(err), "overview", page{Title: "Error", CSRF: ss.csrf, Error: err.Error(),
		Data: overviewData{}})
}
