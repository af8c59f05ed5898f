package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/disburse/disburse"
)

// What the soak's checks read: lists through the API, page by page, and
// counts from the service's database.

// soakAmount is an amount as the API writes it, read exactly.
type soakAmount disburse.Money

func (a *soakAmount) UnmarshalJSON(b []byte) error {
	m, ok := disburse.ParseMoney(string(b))
	if !ok {
		return fmt.Errorf("amount %s", b)
	}
	*a = soakAmount(m)
	return nil
}

// soakListedBatch is a batch as GET /batches lists it.
type soakListedBatch struct {
	ID, ExternalID, StatusCode, SubmittedAt string
}

// soakPayment is a payment as GET /batches/{id}/payments lists it.
type soakPayment struct {
	ID, Msisdn, StatusCode, SettledAt, SubmittedAt string
	Amount, ReferralAmount                         soakAmount
	ReferralMsisdn, ReferralStatusCode, ExternalID string
}

// count runs a counting query on the service's database.
func (r *soakRun) count(query string) int {
	var n int
	if err := r.db.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		r.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// list GETs a list that comes in one answer, decoded as raw objects.
func (r *soakRun) list(token, path string) []json.RawMessage {
	c := client{t: r.t, admin: r.admin}
	status, b := c.do(r.fleet.any(), "GET", path, token, "")
	var all []json.RawMessage
	if status != 200 || json.Unmarshal(b, &all) != nil {
		r.t.Fatalf("GET %s: %d %.300s", path, status, b)
	}
	return all
}

// pages GETs every page of a list of path (which takes skip and take),
// decoded as raw objects.
func (r *soakRun) pages(token, path string) []json.RawMessage {
	c := client{t: r.t, admin: r.admin}
	sep := "?"
	if u, _ := url.Parse(path); u.RawQuery != "" {
		sep = "&"
	}
	var all []json.RawMessage
	for skip := 0; ; skip += 1000 {
		status, b := c.do(r.fleet.any(), "GET", fmt.Sprintf("%s%sskip=%d&take=1000", path, sep, skip), token, "")
		var page []json.RawMessage
		if status != 200 || json.Unmarshal(b, &page) != nil {
			r.t.Fatalf("GET %s: %d %.300s", path, status, b)
		}
		all = append(all, page...)
		if len(page) < 1000 {
			return all
		}
	}
}

// auditCounts counts the audit entries of the query (organisationId=…
// or action=…) by action and subject, over every page.
func (r *soakRun) auditCounts(query string) map[string]int {
	c := client{t: r.t, admin: r.admin}
	counts := map[string]int{}
	for after := ""; ; {
		var page struct {
			Entries    []struct{ Action, Subject string }
			NextCursor *string
		}
		status, b := c.do(r.fleet.any(), "GET", "/admin/audit?take=1000&"+query+"&after="+url.QueryEscape(after), r.admin, "")
		if status != 200 || json.Unmarshal(b, &page) != nil {
			r.t.Fatalf("GET /admin/audit?%s: %d %.300s", query, status, b)
		}
		for _, e := range page.Entries {
			counts[e.Action+" "+e.Subject]++
			counts[e.Action]++
		}
		if page.NextCursor == nil {
			return counts
		}
		after = *page.NextCursor
	}
}
