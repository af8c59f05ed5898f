package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlite/sqlitetest"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/webhooks"
)

// The end-to-end harness: the real handler on a real listener on
// 127.0.0.1:0, over a fresh database of each store, driven over HTTP only.
// The clock is injected so that tests move time instead of sleeping.

// opener opens a fresh, migrated store for one test and closes it when the
// test ends. It is the SQL store itself, which hands over the ports of
// the features (Webhooks, Idempotency) on its database.
type opener func(t *testing.T) *sqlstore.Store

// featureStore is a store that hands over the features' ports too, as
// sqlstore.Store does: what serveStore serves, so that a test can wrap it.
type featureStore interface {
	disburse.Store
	Webhooks() webhooks.Store
	Idempotency() idempotency.Store
	Auth() auth.Store
}

// eachStore runs test on every store (docs/api.md section 9: both pass the
// same suite): a temp SQLite file, and a PostgreSQL database of its own,
// which pgtest skips, saying how to run it, without DISBURSE_TEST_POSTGRES_URL.
func eachStore(t *testing.T, test func(t *testing.T, store opener)) {
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

const adminToken = "adm_e2e-test-token"

type harness struct {
	t     *testing.T
	base  string
	svc   *disburse.Service
	hooks *webhooks.Service
	keys  *idempotency.Keys // svc's, on keyStore
	auth  *auth.Service     // the server's keys and tokens, on its AuthStore
	clock *clock
	// client checks every exchange against openapi.yaml (e2e_openapi_test.go).
	client *http.Client
	// keyStore is the server's IdempotencyStore, for another server of
	// the same database (startServerOf).
	keyStore idempotency.Store
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// startOn serves a fresh database of the store; when the test ends the
// ledger must audit clean.
func startOn(t *testing.T, open opener, cfg httpapi.Config) *harness {
	t.Helper()
	store := open(t)
	if cfg.IdempotencyStore == nil {
		cfg.IdempotencyStore = store.Idempotency()
	}
	if cfg.OperatorStore == nil {
		cfg.OperatorStore = store
	}
	return serveStore(t, store, cfg)
}

// serveStore is startOn with the store open already: one a test wraps,
// its Idempotency-Key store in cfg, and its auth store there or the store's.
func serveStore(t *testing.T, store featureStore, cfg httpapi.Config) *harness {
	t.Helper()
	if cfg.AuthStore == nil {
		cfg.AuthStore = store.Auth()
	}
	c := &clock{now: time.Date(2026, 11, 22, 10, 15, 30, 123456000, time.UTC)}
	svc := disburse.NewService(store)
	svc.Clock = c.Now
	svc.Log = e2eLogger()
	// Pages of 3: a submit of a few payments moves them, and answers with
	// them, over several pages.
	svc.PageSize = 3
	hooks := webhooks.New(store.Webhooks(), svc)
	cfg.Webhooks = hooks
	if cfg.Log == nil {
		cfg.Log = e2eLogger()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: httpapi.New(svc, cfg), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	h := &harness{t: t, base: "http://" + ln.Addr().String(), svc: svc, hooks: hooks, clock: c,
		keys: idempotency.New(svc, cfg.IdempotencyStore), keyStore: cfg.IdempotencyStore, auth: auth.New(cfg.AuthStore, svc),
		client: &http.Client{Transport: validatingTransport{t}}}
	t.Cleanup(func() {
		if cfg.AdminToken == adminToken && !t.Failed() {
			h.checkLedger()
		}
		// The client's transport may hold a connection it dialled and
		// never used (its dial lost the race to an idle one). The server
		// counts such a connection idle only after 5 s, so Shutdown would
		// wait for it: the client closes its idle connections first, and
		// the deadline is above those 5 s.
		h.client.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return h
}

// startDefaultOn serves the store with the operator API on adminToken.
func startDefaultOn(t *testing.T, open opener) *harness {
	t.Helper()
	return startOn(t, open, httpapi.Config{AdminToken: adminToken})
}

// response is what came back, checked for what every response must carry.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends body (nil: none; string or []byte: as is; else JSON) with a bearer token ("" for none).
func (h *harness) do(method, path, token string, body any) response {
	h.t.Helper()
	auth := ""
	if token != "" {
		auth = "Bearer " + token
	}
	return h.send(method, path, auth, body)
}

// send is do with the whole Authorization header ("" for none).
func (h *harness) send(method, path, authorization string, body any) response {
	h.t.Helper()
	return h.sendWith(method, path, authorization, body, nil)
}

// sendWith is send with header's headers too.
func (h *harness) sendWith(method, path, authorization string, body any, header http.Header) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	for name, values := range header {
		req.Header[name] = values
	}
	res, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	if res.Header.Get("X-Request-Id") == "" {
		h.t.Errorf("%s %s: no X-Request-Id", method, path)
	}
	return response{status: res.StatusCode, header: res.Header, body: data}
}

// ok asserts the status and a JSON body, and decodes it into T. Amounts
// decode as json.Number, so their text (150.00) is compared exactly.
func ok[T any](t *testing.T, r response, status int) T {
	t.Helper()
	var v T
	if r.status != status {
		t.Fatalf("status = %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	dec.DisallowUnknownFields() // the test types list every field the API may write
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

// problem asserts an RFC 9457 problem of the docs/api.md (section 2).
func problem(t *testing.T, r response, status int, code string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	if status == 401 && r.header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("401 without WWW-Authenticate: Bearer")
	}
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("problem %s: %v", r.body, err)
	}
	want := map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": json.Number(itoa(status)), "code": code}
	got := map[string]any{"type": p["type"], "title": p["title"], "status": p["status"], "code": p["code"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
	if d, _ := p["detail"].(string); d == "" {
		t.Errorf("problem without detail: %s", r.body)
	}
	return p
}

func itoa(i int) string { return string(must(json.Marshal(i))) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// failure is one element of a 400 array, message aside (checked non-empty).
type failure struct {
	FieldName, FieldValue string
	Index                 *int
}

func at(i int) *int { return &i }

// failures asserts a 400 array (docs/api.md section 2) and returns it.
func failures(t *testing.T, r response) []failure {
	t.Helper()
	type wire struct {
		ErrorMessage string `json:"errorMessage"`
		FieldName    string `json:"fieldName"`
		FieldValue   string `json:"fieldValue"`
		Index        *int   `json:"index"`
	}
	var out []failure
	for _, f := range ok[[]wire](t, r, http.StatusBadRequest) {
		if f.ErrorMessage == "" {
			t.Errorf("failure without a message: %+v", f)
		}
		out = append(out, failure{f.FieldName, f.FieldValue, f.Index})
	}
	return out
}

func wantFailures(t *testing.T, r response, want ...failure) {
	t.Helper()
	if diff := cmp.Diff(want, failures(t, r)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// The API's bodies as a client reads them; every field, so that
// DisallowUnknownFields catches one docs/api.md does not name.

type Summary struct {
	PaymentsAmount  json.Number `json:"paymentsAmount"`
	PaymentsCount   int         `json:"paymentsCount"`
	ReferralsAmount json.Number `json:"referralsAmount"`
	SettledAmount   json.Number `json:"settledAmount"`
	SettledCount    int         `json:"settledCount"`
	CancelledAmount json.Number `json:"cancelledAmount"`
	CancelledCount  int         `json:"cancelledCount"`
	PendingAmount   json.Number `json:"pendingAmount"`
	PendingCount    int         `json:"pendingCount"`
}

type Batch struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	ExternalID  string    `json:"externalId"`
	AccountID   string    `json:"accountId"`
	StatusCode  string    `json:"statusCode"`
	CreatedAt   string    `json:"createdAt"`
	SubmittedAt string    `json:"submittedAt"`
	ApprovalID  string    `json:"approvalId"`
	Summary     *Summary  `json:"summary"`
	Payments    []Payment `json:"payments"`
}

type Payment struct {
	ID                 string      `json:"id"`
	BatchID            string      `json:"batchId"`
	Msisdn             string      `json:"msisdn"`
	Amount             json.Number `json:"amount"`
	Firstname          string      `json:"firstname"`
	Lastname           string      `json:"lastname"`
	ExternalID         string      `json:"externalId"`
	StatusCode         string      `json:"statusCode"`
	SettledAt          string      `json:"settledAt"`
	IsMember           *bool       `json:"isMember"`
	ReferralAmount     json.Number `json:"referralAmount"`
	ReferralMsisdn     string      `json:"referralMsisdn"`
	ReferralStatusCode string      `json:"referralStatusCode"`
	CreatedAt          string      `json:"createdAt"`
	SubmittedAt        string      `json:"submittedAt"`
	ReversalDueAt      string      `json:"reversalDueAt"`
	CancelledAt        string      `json:"cancelledAt"`

	// Other holds, as JSON text, the members that openapi.yaml's Payment
	// schema declares and this type does not name: a new payment field is
	// declared in the document, and a member it does not declare is
	// still refused.
	Other map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON reads a payment as ok reads every body, refusing a member
// docs/api.md does not name, with those of Other aside.
func (p *Payment) UnmarshalJSON(b []byte) error {
	type plain Payment // without this method
	if strict(b, (*plain)(p)) == nil {
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	spec, err := apiDocument()
	if err != nil {
		return err
	}
	declared := spec.doc.Components.Schemas["Payment"].Value.Properties
	named := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Payment]()) {
		named[strings.Split(f.Tag.Get("json"), ",")[0]] = true
	}
	var other map[string]json.RawMessage
	for k, v := range members {
		if _, ok := declared[k]; ok && !named[k] {
			if other == nil {
				other = map[string]json.RawMessage{}
			}
			other[k] = v
			delete(members, k)
		}
	}
	rest, err := json.Marshal(members)
	if err != nil {
		return err
	}
	*p = Payment{}
	if err := strict(rest, (*plain)(p)); err != nil {
		return err
	}
	p.Other = other
	return nil
}

// strict decodes b into v as ok does: numbers as json.Number, and a
// member v does not name is an error.
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

type Account struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Currency    string      `json:"currency"`
	Balance     json.Number `json:"balance"`
	HeldBalance json.Number `json:"heldBalance"`
	IsDefault   bool        `json:"isDefault"`
}

type Organisation struct {
	ID                    string      `json:"id"`
	Name                  string      `json:"name"`
	Currency              string      `json:"currency"`
	ReferralsEnabled      bool        `json:"referralsEnabled"`
	ReversalPeriodSeconds int64       `json:"reversalPeriodSeconds"`
	ApprovalThreshold     json.Number `json:"approvalThreshold"`
	Accounts              []Account   `json:"accounts"`
	Sandbox               bool        `json:"sandbox"`
}

type Statement struct {
	Msisdn  string           `json:"msisdn"`
	Balance json.Number      `json:"balance"`
	Entries []StatementEntry `json:"entries"`
}

type StatementEntry struct {
	PaymentID        string      `json:"paymentId"`
	OrganisationName string      `json:"organisationName"`
	Amount           json.Number `json:"amount"`
	SettledAt        string      `json:"settledAt"`
	Leg              string      `json:"leg"`
	Currency         string      `json:"currency"`
}

type Notification struct {
	ID        string `json:"id"`
	Channel   string `json:"channel"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
	Status    string `json:"status"`
	Attempts  int    `json:"attempts"`
	CreatedAt string `json:"createdAt"`
	SentAt    string `json:"sentAt"`
	LastError string `json:"lastError"`
}

var dateTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}$`)

// wantTime asserts the date-time form of docs/api.md section 1 and value: UTC, 7 digits, no offset.
func wantTime(t *testing.T, name, got string, want time.Time) {
	t.Helper()
	if !dateTimeRE.MatchString(got) {
		t.Errorf("%s = %q: not yyyy-mm-ddThh:mm:ss.fffffff", name, got)
		return
	}
	if w := want.UTC().Format("2006-01-02T15:04:05.0000000"); got != w {
		t.Errorf("%s = %s, want %s", name, got, w)
	}
}

// An organisation set up through the operator API, with a token.
type org struct {
	Organisation
	key, token string
}

func (h *harness) createOrg(name string, referrals bool, float string) org {
	h.t.Helper()
	o := ok[Organisation](h.t, h.do("POST", "/admin/organisations", adminToken,
		map[string]any{"name": name, "referralsEnabled": referrals}), 201)
	key := ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](h.t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	if float != "" {
		h.deposit(o.Accounts[0].ID, float)
	}
	return org{Organisation: o, key: key.APIKey, token: h.token(key.APIKey)}
}

func (h *harness) deposit(accountID, amount string) {
	h.t.Helper()
	r := h.do("POST", "/admin/accounts/"+accountID+"/deposits", adminToken, `{"amount":`+amount+`,"reference":"top up"}`)
	ok[map[string]any](h.t, r, 201)
}

func (h *harness) token(apiKey string) string {
	h.t.Helper()
	tok := ok[struct {
		AccessToken string `json:"accessToken"`
		TokenType   string `json:"tokenType"`
		ExpiresIn   int    `json:"expiresIn"`
	}](h.t, h.do("POST", "/authentication/getToken", "", map[string]string{"apiKey": apiKey}), 200)
	return tok.AccessToken
}

func (h *harness) createBatch(o org, name string) Batch {
	h.t.Helper()
	return ok[Batch](h.t, h.do("POST", "/batches", o.token, map[string]string{"name": name}), 201)
}

// addPayments posts raw JSON payments (so amounts go exactly as written).
func (h *harness) addPayments(o org, batchID string, clear bool, payments ...string) response {
	h.t.Helper()
	return h.do("POST", "/batches/"+batchID+"/payments", o.token,
		`{"clearExisting":`+strconv.FormatBool(clear)+`,"payments":[`+strings.Join(payments, ",")+`]}`)
}

func (h *harness) register(msisdn string, appInstalled bool) response {
	h.t.Helper()
	return h.do("POST", "/admin/members", adminToken, map[string]any{"msisdn": msisdn, "appInstalled": appInstalled})
}

func (h *harness) account(o org) Account {
	h.t.Helper()
	accounts := ok[[]Account](h.t, h.do("GET", "/accounts", o.token, nil), 200)
	for _, a := range accounts {
		if a.IsDefault {
			return a
		}
	}
	h.t.Fatalf("no default account in %+v", accounts)
	return Account{}
}

func (h *harness) checkLedger() {
	h.t.Helper()
	got := ok[map[string]any](h.t, h.do("GET", "/admin/ledger/check", adminToken, nil), 200)
	if diff := cmp.Diff(map[string]any{"ok": true, "problems": []any{}}, got); diff != "" {
		h.t.Errorf("ledger check (-want +got):\n%s", diff)
	}
}

func pay(msisdn, amount string) string { return `{"msisdn":"` + msisdn + `","amount":` + amount + `}` }
