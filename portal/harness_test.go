package portal_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlite/sqlitetest"
	"github.com/disburse/disburse/sqlstore"
)

type opener func(t *testing.T) *sqlstore.Store

// eachStore runs test on SQLite and on PostgreSQL (which pgtest skips,
// saying how to run it, without DISBURSE_TEST_POSTGRES_URL).
func eachStore(t *testing.T, test func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); test(t, openSQLite) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); test(t, pgtest.OpenSQL) })
}

func openSQLite(t *testing.T) *sqlstore.Store {
	t.Helper()
	store, err := sqlite.Open(t.Context(), sqlitetest.Path(t, sqlite.Migrations(), sqlite.Migrate))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// clock is a test's movable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// world is a served portal with an operator, two organisations and a user
// of each.
type world struct {
	srv              *httptest.Server
	store            *sqlstore.Store
	svc              *disburse.Service
	office           *backoffice.Service
	keys             *auth.Service      // the organisations' API keys
	ops              *operators.Service // reads the audit log
	clock            *clock
	org, other       disburse.Organisation
	orgAccount       disburse.Account
	operatorPassword string
	userPassword     string
	otherPassword    string
	checkerPassword  string // a second user of Acme's, who approves
}

const (
	operatorEmail = "op@example.org"
	userEmail     = "pay@acme.example"
	otherEmail    = "pay@other.example"
	checkerEmail  = "checker@acme.example"
	adminToken    = "adm_test_token_long_enough_for_config"
)

// testPasswordCost is argon2id's least cost: the tests sign in hundreds
// of times, and what a password's hash costs is not what they check
// (backoffice's tests check the service's own).
var testPasswordCost = backoffice.PasswordCost{Time: 1, Memory: 8, Threads: 1}

// newWorld serves the portal on a store of open's, with configs applied
// to the portal's Config.
func newWorld(t *testing.T, open opener, configs ...func(*portal.Config)) *world {
	t.Helper()
	ctx := t.Context()
	store := open(t)
	svc, office := disburse.NewService(store), backoffice.NewService(store)
	c := &clock{now: time.Now().UTC()}
	svc.Clock, office.Clock = c.Now, c.Now
	office.PasswordCost = testPasswordCost
	w := &world{store: store, svc: svc, office: office, keys: auth.New(store.Auth(), svc), clock: c, ops: operators.New(store, "")}
	var accounts []disburse.Account
	var err error
	if w.org, accounts, err = organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Acme Payouts"}); err != nil {
		t.Fatal(err)
	}
	w.orgAccount = accounts[0]
	if w.other, _, err = organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Other Org"}); err != nil {
		t.Fatal(err)
	}
	mk := func(email string, role backoffice.Role, org string, roles ...auth.Role) string {
		_, pw, err := office.CreateUser(ctx, backoffice.NewUser{Email: email, Role: role, OrganisationID: org, Roles: auth.RolesOf(roles...)})
		if err != nil {
			t.Fatal(err)
		}
		return pw
	}
	w.operatorPassword = mk(operatorEmail, backoffice.RoleOperator, "")
	w.userPassword = mk(userEmail, backoffice.RoleOrganisation, w.org.ID)
	w.otherPassword = mk(otherEmail, backoffice.RoleOrganisation, w.other.ID)
	w.checkerPassword = mk(checkerEmail, backoffice.RoleOrganisation, w.org.ID, auth.RoleApprover, auth.RoleMaker)
	cfg := portal.Config{AuthStore: store.Auth(), Operators: w.ops}
	for _, c := range configs {
		c(&cfg)
	}
	w.srv = httptest.NewServer(httpapi.New(svc, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), OperatorStore: store,
		Portal: portal.New(svc, office, cfg)}))
	t.Cleanup(w.srv.Close)
	return w
}

// browser is a client with its own cookies that does not follow
// redirects, so tests see each answer.
type browser struct {
	t      *testing.T
	c      *http.Client
	base   string
	origin string // sent as Origin on POSTs, as a browser does
}

func (w *world) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: w.srv.URL, origin: w.srv.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// signedIn is a browser signed in as email.
func (w *world) signedIn(t *testing.T, email, password string) *browser {
	t.Helper()
	b := w.browser(t)
	res := b.post("/portal/signin", url.Values{"email": {email}, "password": {password}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d %s", email, res.status, res.body)
	}
	return b
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) answer {
	b.t.Helper()
	a := <-b.send(req)
	if a.status == 0 {
		b.t.Fatal(a.body)
	}
	return a
}

func (b *browser) get(path string) answer {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.base+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) answer {
	b.t.Helper()
	return b.do(b.postRequest(path, form))
}

// postRequest is the request of post, to send another way (send).
func (b *browser) postRequest(path string, form url.Values) *http.Request {
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	return req
}

// send sends req from a goroutine of its own and hands over its answer
// when it comes: status 0 and the error as the body when none does.
func (b *browser) send(req *http.Request) <-chan answer {
	answered := make(chan answer, 1)
	go func() {
		res, err := b.c.Do(req)
		if err != nil {
			answered <- answer{body: err.Error()}
			return
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		answered <- answer{res.StatusCode, res.Header, string(body)}
	}()
	return answered
}

// expect fails the test unless the answer has status and its body holds
// every one of texts.
func (a answer) expect(t *testing.T, status int, texts ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", a.status, status, a.body)
	}
	for _, s := range texts {
		if !strings.Contains(a.body, s) {
			t.Fatalf("body lacks %q:\n%s", s, a.body)
		}
	}
}

var idPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
