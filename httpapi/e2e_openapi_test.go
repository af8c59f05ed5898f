package httpapi_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/apiversion"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Every request the end-to-end suite sends, and every answer it gets, is
// checked against openapi.yaml by the harness's client (validatingTransport):
// an answer must be declared for its operation (an undeclared status is a
// failure) and match its schema and headers; a request the document calls
// invalid must be refused (4xx). So the document cannot drift from the
// server without a test failing.

// apiDocument is openapi.yaml, loaded and checked once; the exchanges of
// version 2026-12-01 (its answers say so in Disburse-Version) are checked
// against that version's document, openapi-2026-12-01.yaml.
var apiDocument = sync.OnceValues(func() (*apiSpec, error) { return loadDocument("openapi.yaml") })

var apiDocument20261201 = sync.OnceValues(func() (*apiSpec, error) { return loadDocument("openapi-2026-12-01.yaml") })

// documentOf is the document of the exchange's version: its answer's
// Disburse-Version, else the one its request named, else the first.
func documentOf(req *http.Request, res *http.Response) (*apiSpec, error) {
	if cmp.Or(res.Header.Get("Disburse-Version"), req.Header.Get("Disburse-Version")) == apiversion.V20261201 {
		return apiDocument20261201()
	}
	return apiDocument()
}

func loadDocument(file string) (*apiSpec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(file)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("%s is not a valid document: %w", file, err)
	}
	// The document's server is "/": match the test server's any host.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &apiSpec{doc: doc, router: router}, nil
}

type apiSpec struct {
	doc    *openapi3.T
	router routers.Router
}

// validatingTransport sends each request with http.DefaultTransport and
// reports to t every way the exchange departs from openapi.yaml.
type validatingTransport struct {
	t *testing.T
}

// CloseIdleConnections closes the idle connections of the transport it
// sends through (http.Client.CloseIdleConnections calls it).
func (validatingTransport) CloseIdleConnections() {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

func (v validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	reqBody, err := readAll(req.Body)
	if err != nil {
		return nil, err
	}
	e2eLogs.notePayees([]byte(req.URL.RequestURI()))
	e2eLogs.notePayees(reqBody)
	sent := req.Clone(req.Context())
	sent.Body = io.NopCloser(bytes.NewReader(reqBody))
	res, err := http.DefaultTransport.RoundTrip(sent)
	if err != nil {
		return nil, err
	}
	resBody, err := readAll(res.Body)
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if err := checkExchange(req, reqBody, res, resBody); err != nil {
		v.t.Errorf("openapi.yaml: %s %s → %d: %v", req.Method, req.URL.Path, res.StatusCode, err)
	}
	return res, nil
}

func readAll(body io.ReadCloser) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	defer body.Close()
	return io.ReadAll(body)
}

// checkExchange is the check itself: nil when the request and its answer
// are what openapi.yaml says.
func checkExchange(req *http.Request, reqBody []byte, res *http.Response, resBody []byte) error {
	spec, err := documentOf(req, res)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if named := req.Header.Get("Disburse-Version"); named != "" && !apiversion.Known(named) {
		// Any path answers an unknown version with the BadRequest
		// response, declared once in components.
		return checkUnrouted(ctx, spec, req, res, resBody, http.StatusBadRequest, "BadRequest")
	}
	probe := req.Clone(ctx)
	probe.Body = io.NopCloser(bytes.NewReader(reqBody))
	if len(reqBody) > 0 && probe.Header.Get("Content-Type") == "" {
		// The server reads every body as JSON whatever its Content-Type
		// (openapi.yaml says so); the suite often sends none.
		probe.Header.Set("Content-Type", "application/json")
	}
	route, pathParams, err := spec.router.FindRoute(probe)
	// The router makes a new error each time, with the sentinel's reason.
	var routeErr *routers.RouteError
	switch {
	case errors.As(err, &routeErr) && routeErr.Reason == routers.ErrMethodNotAllowed.Error():
		return checkUnrouted(ctx, spec, probe, res, resBody, http.StatusMethodNotAllowed, "MethodNotAllowed")
	case errors.As(err, &routeErr) && routeErr.Reason == routers.ErrPathNotFound.Error():
		return checkUnrouted(ctx, spec, probe, res, resBody, http.StatusNotFound, "NotFound")
	case err != nil:
		return err
	}
	in := &openapi3filter.RequestValidationInput{
		Request: probe, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: bearerPresent, MultiError: true, IncludeResponseStatus: true,
		},
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if reqErr != nil && res.StatusCode < 300 && onlyReferralFields(reqErr) {
		// openapi.yaml: with referrals disabled both referral fields are
		// ignored, whatever they hold; the suite sends odd ones to show it.
		reqErr = nil
	}
	if reqErr != nil && (res.StatusCode < 400 || res.StatusCode >= 500) {
		return fmt.Errorf("the document refuses the request, the server answered %d: %v", res.StatusCode, reqErr)
	}
	return validateAnswer(ctx, in, res, resBody)
}

// onlyReferralFields: every failure of err is about a payment's referral fields.
func onlyReferralFields(err error) bool {
	var errs openapi3.MultiError
	if !errors.As(err, &errs) {
		errs = openapi3.MultiError{err}
	}
	for _, e := range errs {
		var inner openapi3.MultiError
		if errors.As(e, &inner) && len(inner) > 0 {
			if !onlyReferralFields(inner) {
				return false
			}
			continue
		}
		if msg := e.Error(); !strings.Contains(msg, "/referralAmount\"") && !strings.Contains(msg, "/referralMsisdn\"") {
			return false
		}
	}
	return true
}

// bearerPresent is the document's security check: a Bearer credential is
// present (whether it is valid is the server's to say, with a declared 401).
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme == nil || in.SecurityScheme.Scheme != "bearer" {
		return fmt.Errorf("unexpected security scheme %q", in.SecuritySchemeName)
	}
	if !strings.HasPrefix(strings.ToLower(in.RequestValidationInput.Request.Header.Get("Authorization")), "bearer ") {
		return errors.New("no bearer credential")
	}
	return nil
}

func validateAnswer(ctx context.Context, in *openapi3filter.RequestValidationInput, res *http.Response, resBody []byte) error {
	return openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(resBody)),
		Options:                in.Options,
	})
}

// checkUnrouted checks an answer to a path or method the document lacks:
// it must be the document's 404 or 405 response (declared once, in
// components, since it belongs to no operation), and a 405's Allow must
// list the methods the document gives the path.
func checkUnrouted(ctx context.Context, spec *apiSpec, req *http.Request, res *http.Response, resBody []byte, want int, component string) error {
	if res.StatusCode != want {
		return fmt.Errorf("not in the document (want %d), the server answered %d", want, res.StatusCode)
	}
	if want == http.StatusMethodNotAllowed {
		if got, documented := res.Header.Get("Allow"), allowedMethods(spec.doc, req.URL.Path); got != documented {
			return fmt.Errorf("Allow = %q, the document gives the path %q", got, documented)
		}
	}
	responses := openapi3.NewResponses()
	responses.Set(fmt.Sprint(want), spec.doc.Components.Responses[component])
	op := &openapi3.Operation{Responses: responses}
	route := &routers.Route{Spec: spec.doc, Path: req.URL.Path, Method: req.Method, Operation: op}
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	return validateAnswer(ctx, in, res, resBody)
}

// allowedMethods is the Allow header ServeMux writes for path: the
// methods of every path of the document that matches it ({x} matches one
// segment), sorted, HEAD beside GET.
func allowedMethods(doc *openapi3.T, path string) string {
	seen := map[string]bool{}
	for template, item := range doc.Paths.Map() {
		if !templateMatches(template, path) {
			continue
		}
		for method := range item.Operations() {
			seen[method] = true
			if method == http.MethodGet {
				seen[http.MethodHead] = true
			}
		}
	}
	methods := slices.Sorted(maps.Keys(seen))
	return strings.Join(methods, ", ")
}

func templateMatches(template, path string) bool {
	want, got := strings.Split(template, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] != got[i] && !(strings.HasPrefix(want[i], "{") && got[i] != "") {
			return false
		}
	}
	return true
}

// TestValidatorCatchesDrift: the check fails on an undeclared status, on a
// body that breaks its schema, on a missing declared header, and on a 2xx
// to a request the document refuses; it passes a conforming exchange.
func TestValidatorCatchesDrift(t *testing.T) {
	get := func(path, auth string) *http.Request {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:1"+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return req
	}
	answer := func(status int, body string, header ...string) *http.Response {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r1"}}
		for i := 0; i+1 < len(header); i += 2 {
			if header[i+1] == "" {
				h.Del(header[i])
			} else {
				h.Set(header[i], header[i+1])
			}
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	account := `[{"id":"0193a1b2-0000-7000-8000-000000000001","name":"Main","currency":"KES","balance":150000.01,"heldBalance":0.00,"isDefault":true}]`
	for _, tc := range []struct {
		name    string
		req     *http.Request
		res     *http.Response
		body    string
		wantErr bool
	}{
		{"conforming", get("/accounts", "Bearer x"), answer(200, ""), account, false},
		{"undeclared status", get("/accounts", "Bearer x"), answer(418, ""), `{}`, true},
		{"body breaks its schema", get("/accounts", "Bearer x"), answer(200, ""), `[{"id":"x"}]`, true},
		{"amount as a string", get("/accounts", "Bearer x"), answer(200, ""), strings.Replace(account, `150000.01`, `"150000.01"`, 1), true},
		{"no X-Request-Id", get("/accounts", "Bearer x"), answer(200, "", "X-Request-Id", ""), account, true},
		{"refused request answered 200", get("/accounts", ""), answer(200, ""), account, true},
		{"refused request answered 401", get("/accounts", ""), answer(401, "", "Content-Type", "application/problem+json", "WWW-Authenticate", "Bearer"),
			`{"type":"about:blank","title":"Unauthorized","status":401,"detail":"d","code":"unauthorized"}`, false},
		{"bad date-time", get("/batches/0193a1b2-0000-7000-8000-000000000001", "Bearer x"), answer(200, ""),
			`{"id":"0193a1b2-0000-7000-8000-000000000001","name":"n","accountId":"0193a1b2-0000-7000-8000-000000000001","statusCode":"DRAFT","createdAt":"2026-11-22T10:15:30Z","summary":{"paymentsAmount":0.00,"paymentsCount":0,"referralsAmount":0.00,"settledAmount":0.00,"settledCount":0,"cancelledAmount":0.00,"cancelledCount":0,"pendingAmount":0.00,"pendingCount":0}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkExchange(tc.req, nil, tc.res, []byte(tc.body))
			if (err != nil) != tc.wantErr {
				t.Errorf("checkExchange = %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
	// A method the path lacks: 405 with the path's own methods only.
	put := get("/batches", "")
	put.Method = "PATCH"
	for allow, wantErr := range map[string]bool{"GET, HEAD, POST": false, "GET, HEAD": true} {
		res := answer(405, "", "Content-Type", "application/problem+json", "Allow", allow)
		err := checkExchange(put, nil, res, []byte(`{"type":"about:blank","title":"Method Not Allowed","status":405,"detail":"d","code":"method_not_allowed"}`))
		if (err != nil) != wantErr {
			t.Errorf("Allow %q: checkExchange = %v, want an error: %v", allow, err, wantErr)
		}
	}
}
