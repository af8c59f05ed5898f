package portal

import (
	"bytes"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
)

// page is what every template is given: the signed-in user and the parts
// the page uses. One type for all pages keeps the templates' data plain.
type page struct {
	Title   string
	User    disburse.PortalUser
	Message string
	Errors  []string          // failures not tied to one field
	Field   map[string]string // a failure beside each field, by field name
	Form    map[string]string // what the user typed, shown again after a failure
	Next    string
	Email   string
	Search  string

	Organisation  disburse.Organisation
	Organisations []disburse.OrganisationSummary
	Accounts      []disburse.Account
	Keys          []disburse.APIKey
	NewKey        string
	Batch         disburse.Batch
	Batches       []disburse.Batch
	Payment       disburse.Payment
	Payments      []disburse.Payment
	NextCursor    string
	Filter        map[string]string
	Statuses      []disburse.BatchStatus
	Statement     *disburse.Statement
	Notifications []disburse.Notification
	Ledger        *disburse.LedgerReport
	CheckedAt     time.Time
	Audit         []disburse.AuditEntry
	Upload        *uploadResult
}

var funcs = template.FuncMap{
	"time": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	// days shows a reversal period in days, or as a duration when it is
	// not whole days (one set in seconds through the operator API).
	"days": func(d time.Duration) string {
		if d%(24*time.Hour) == 0 {
			return strconv.FormatInt(int64(d/(24*time.Hour)), 10)
		}
		return d.String()
	},
	"operator": func(u disburse.PortalUser) bool { return u.Role == disburse.RoleOperator },
}

// parsePages parses each page with the layout: one template set per page,
// so that each page's "content" stands alone.
func parsePages() map[string]*template.Template {
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html"))
	pages := make(map[string]*template.Template)
	names, _ := fs.Glob(templateFiles, "templates/*.html")
	for _, name := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		pages[base] = template.Must(template.Must(layout.Clone()).ParseFS(templateFiles, name))
	}
	return pages
}

// render writes a page with status; the user is the request's.
func (p *portal) render(w http.ResponseWriter, r *http.Request, status int, name string, data page) {
	data.User = user(r)
	var buf bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&buf, "layout.html", data); err != nil {
		p.log.Error("portal: template", "page", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fieldErrors spreads a validation error over the form's fields: each
// failure beside its field (by the domain's field name), the rest above.
func fieldErrors(err error) (map[string]string, []string, bool) {
	e, ok := err.(*disburse.Error)
	if !ok || e.Code != disburse.CodeInvalid {
		return nil, nil, false
	}
	field := make(map[string]string)
	for _, f := range e.Fields {
		field[f.FieldName] = f.ErrorMessage
	}
	return field, nil, true
}
