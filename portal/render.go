package portal

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/portal/backoffice"
)

// page is what every template is given: the signed-in user and the parts
// the page uses. One type for all pages keeps the templates' data plain.
type page struct {
	Title   string
	User    backoffice.User
	Message string
	Errors  []string          // failures not tied to one field
	Field   map[string]string // a failure beside each field, by field name
	Form    map[string]string // what the user typed, shown again after a failure
	Next    string
	Email   string
	Search  string

	Organisation  disburse.Organisation
	Organisations []backoffice.OrganisationSummary
	Accounts      []disburse.Account
	Keys          []auth.APIKey
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
	Actions       []string // the audit log's actions, its page's filter
	Upload        *uploadResult
	Legs          []leg
	UploadID      string             // a new upload's id, for its progress
	Progress      *backoffice.Upload // an upload's progress

	Team           []backoffice.User       // the organisation's users, on the Users page
	Invitations    []backoffice.Invitation // its invitations
	Invitation     *backoffice.Invitation  // the one just made, or the one a link names
	InvitationLink string                  // the link of the one just made, shown once
	AllRoles       []auth.Role             // the roles a form offers
	Now            time.Time               // to tell expired invitations
	// Currency is each organisation's currency by id, for a list of
	// several organisations' rows; a page of one organisation's reads
	// Organisation.Currency.
	Currency map[string]string
	// Preview is what a submit or a cancel of Batch would do now, for a
	// confirmation (Confirm: "submit" or "cancel") and an approval's page.
	Preview  *backoffice.Preview
	Confirm  string
	Approval disburse.Approval
	// Approvals, with their batches by id, for the list of approvals.
	Approvals       []disburse.Approval
	ApprovalBatches map[string]disburse.Batch
	ApprovalStatus  []disburse.ApprovalStatus
	// Mine: the signed-in user requested Approval, so may not decide it.
	Mine bool
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
	"operator": func(u backoffice.User) bool { return u.Role == backoffice.RoleOperator },
	// can reports whether the user may use what needs the role named:
	// the server's own check (backoffice.User.Permits), so that a page
	// shows only the buttons that work.
	"can": func(u backoffice.User, need string) bool { return u.Permits(auth.Role(need)) },
	// roles lists a set of roles for reading.
	"roles":     func(rs auth.Roles) string { return strings.ReplaceAll(rs.String(), ",", ", ") },
	"money":     money,
	"thousands": thousands,
	// threshold shows an approval threshold, or "" while approval is off.
	"threshold": func(m *disburse.Money) string {
		if m == nil {
			return ""
		}
		return m.String()
	},
	// csvColumns lists the columns of a payments file, the referral ones
	// or the others, as the upload's hint shows them.
	"csvColumns": func(referral bool) string {
		var cs []string
		for _, c := range csvpayments.Columns {
			if strings.HasPrefix(c, "referral") == referral {
				cs = append(cs, c)
			}
		}
		return strings.Join(cs, ",")
	},
	// nextQuery is the query of a list's next page: its filters, with
	// the cursor key set to cursor.
	"nextQuery": func(filter map[string]string, key, cursor string) template.URL {
		q := url.Values{}
		for k, v := range filter {
			if v != "" && k != key {
				q.Set(k, v)
			}
		}
		q.Set(key, cursor)
		return template.URL(q.Encode())
	},
	// progressText says where an upload is, in words.
	"progressText": func(u backoffice.Upload) string {
		switch u.Phase {
		case backoffice.UploadReceiving:
			return fmt.Sprintf("Receiving the file: %s of %s", megabytes(u.Done), megabytes(u.Total))
		case backoffice.UploadChecking:
			return fmt.Sprintf("Checking the rows: %s read, %d %% of the file", thousands(u.Rows), u.Percent())
		case backoffice.UploadAdding:
			return fmt.Sprintf("Adding the payments: %s of %s added", thousands(u.Done), thousands(u.Total))
		}
		if u.FailureCount > 0 {
			return fmt.Sprintf("Done: nothing added, %s failure(s) in the file's %s line(s).", thousands(u.FailureCount), thousands(u.Lines))
		}
		return fmt.Sprintf("Done: %s rows read.", thousands(u.Rows))
	},
	// account names an account of a transfer in words: whose it is.
	"account": func(a disburse.Account) string {
		switch a.Kind {
		case disburse.AccountPayout:
			return "float: " + a.Name
		case disburse.AccountHolding:
			return "holding"
		case disburse.AccountWallet:
			return "wallet " + a.Msisdn
		}
		return strings.ToLower(string(a.Kind))
	},
}

// megabytes shows a size in MB, one decimal.
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

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
