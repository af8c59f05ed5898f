// Package client is a Go client of the Disburse API, in its newest
// version (Version, sent on every request; docs/versioning.md). Its types
// and calls (client.gen.go) are generated from that version's document,
// httpapi/openapi-2026-12-01.yaml; this file
// adds what a generator cannot: an API key exchanged for access tokens and
// renewed before they expire, retries of safe requests, and an
// Idempotency-Key on every unsafe one. Amounts are wire.Amount (integer
// minor units, never a float) and date-times wire.DateTime (UTC).
package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is the version of the API this client is written for, which it
// names in every request's Disburse-Version.
const Version = "2026-12-01"

// API is the generated client with the credentials and retries of New.
type API struct {
	*ClientWithResponses
	doer *doer
}

// Options tune New; the zero value is sensible.
type Options struct {
	// HTTPClient sends the requests; nil means one with no overall
	// timeout: a submit of a million payments answers once it has
	// committed, minutes later, so bound calls with their context instead.
	HTTPClient *http.Client
	// Retries is how many times a safe request (GET, HEAD) is sent again
	// after a network error, 429, 502, 503 or 504; 0 means 4, -1 none.
	Retries int
	// Backoff is the first wait between tries, doubled each time (a
	// Retry-After from the server wins); 0 means 200ms.
	Backoff time.Duration
	// Now is the clock that decides when a token is due for renewal; nil means time.Now.
	Now func() time.Time
}

// New returns a client of the API at baseURL that authenticates with apiKey.
func New(baseURL, apiKey string, opts Options) (*API, error) {
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	switch {
	case opts.Retries == 0:
		opts.Retries = 4
	case opts.Retries < 0:
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 200 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	baseURL = strings.TrimRight(baseURL, "/")
	d := &doer{base: baseURL, apiKey: apiKey, opts: opts}
	c, err := NewClientWithResponses(baseURL, WithHTTPClient(d))
	if err != nil {
		return nil, err
	}
	return &API{ClientWithResponses: c, doer: d}, nil
}

// doer sends the generated client's requests: it adds the access token,
// renewing it before it expires, an Idempotency-Key on unsafe requests,
// and retries safe ones.
type doer struct {
	base, apiKey string
	opts         Options

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

// Do implements HttpRequestDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Disburse-Version", Version)
	if req.URL.Path == "/authentication/getToken" {
		return d.opts.HTTPClient.Do(req)
	}
	safe := req.Method == http.MethodGet || req.Method == http.MethodHead
	if !safe && req.Header.Get("Idempotency-Key") == "" {
		// One key for the request whatever happens to it, so that a caller
		// who sends the same request again after a lost answer can reuse it.
		req.Header.Set("Idempotency-Key", newKey())
	}
	renewed := false
	for try := 0; ; try++ {
		token, err := d.prepare(req, try)
		if err != nil {
			return nil, err
		}
		res, err := d.opts.HTTPClient.Do(req)
		if !renewed && err == nil && res.StatusCode == http.StatusUnauthorized && resendable(req, safe) {
			// A token revoked or expired early: renew it once and send again
			// (a request the server refused with 401 did nothing).
			res.Body.Close()
			d.forget(token)
			renewed = true
			continue
		}
		if !safe || try >= d.opts.Retries || !retryable(res, err) {
			return res, err
		}
		if err := d.wait(req.Context(), res, try); err != nil {
			return nil, err
		}
	}
}

// prepare sets a live access token on req, and before a retry a fresh
// copy of its body, and returns the token.
func (d *doer) prepare(req *http.Request, try int) (string, error) {
	token, err := d.accessToken(req.Context())
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if try > 0 && req.GetBody != nil {
		if req.Body, err = req.GetBody(); err != nil {
			return "", err
		}
	}
	return token, nil
}

// resendable: the request's body, if any, can be sent a second time.
func resendable(req *http.Request, safe bool) bool {
	return safe || req.GetBody != nil || req.Body == nil
}

// wait sleeps before retry try+1: the answer's Retry-After when it has
// one, else the backoff doubled at each try.
func (d *doer) wait(ctx context.Context, res *http.Response, try int) error {
	wait := d.opts.Backoff << try
	if res != nil {
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		res.Body.Close()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// retryable: the answer says nothing was done and a later try may work.
func retryable(res *http.Response, err error) bool {
	if err != nil {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	switch res.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// accessToken returns a token that is not near its expiry, getting a new
// one from the API key when needed.
func (d *doer) accessToken(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.token != "" && d.opts.Now().Before(d.renewAt) {
		return d.token, nil
	}
	req, err := NewGetTokenRequest(d.base, GetTokenJSONRequestBody{ApiKey: d.apiKey})
	if err != nil {
		return "", err
	}
	req.Header.Set("Disburse-Version", Version)
	res, err := d.opts.HTTPClient.Do(req.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("getToken: %w", err)
	}
	parsed, err := ParseGetTokenResponse(res)
	if err != nil {
		return "", fmt.Errorf("getToken: %w", err)
	}
	if parsed.JSON200 == nil {
		return "", fmt.Errorf("getToken: %w", ResponseError(parsed.StatusCode(), parsed.Body))
	}
	ttl := time.Duration(parsed.JSON200.ExpiresIn) * time.Second
	// Renew when a tenth of the lifetime is left: a request in flight must
	// not reach the server with a token that expired on the way.
	d.token, d.renewAt = parsed.JSON200.AccessToken, d.opts.Now().Add(ttl-ttl/10)
	return d.token, nil
}

// forget drops token if it is still the current one.
func (d *doer) forget(token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.token == token {
		d.token = ""
	}
}

func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Error is an answer that is not a success: a 400's field failures, or
// another status's problem details.
type Error struct {
	Status  int
	Fields  []FieldFailure // a 400's failures
	Problem *Problem       // any other error's details, when the body had them
	Body    string         // the body, when it was neither
}

// FieldFailure is one element of a 400 answer.
type FieldFailure struct {
	ErrorMessage string `json:"errorMessage"`
	FieldName    string `json:"fieldName"`
	FieldValue   string `json:"fieldValue"`
	Index        *int   `json:"index,omitempty"`
}

func (e *Error) Error() string {
	switch {
	case len(e.Fields) > 0:
		var parts []string
		for _, f := range e.Fields {
			at := ""
			if f.Index != nil {
				at = fmt.Sprintf("payments[%d].", *f.Index)
			}
			parts = append(parts, fmt.Sprintf("%s%s %q: %s", at, f.FieldName, f.FieldValue, f.ErrorMessage))
		}
		return fmt.Sprintf("%d: %s", e.Status, strings.Join(parts, "; "))
	case e.Problem != nil:
		return fmt.Sprintf("%d %s: %s", e.Status, e.Problem.Code, e.Problem.Detail)
	}
	return fmt.Sprintf("%d: %s", e.Status, e.Body)
}

// ResponseError turns an answer's status and body into an *Error, or nil
// for a success.
func ResponseError(status int, body []byte) error {
	if status >= 200 && status < 300 {
		return nil
	}
	e := &Error{Status: status}
	if status == http.StatusBadRequest && json.Unmarshal(body, &e.Fields) == nil && len(e.Fields) > 0 {
		return e
	}
	var p Problem
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Problem = &p
		return e
	}
	e.Body = string(body)
	return e
}
