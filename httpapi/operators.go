package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/operators"
)

// The operator's lists and the audit log's two readers (docs/api.md
// section 7): lists in pages, newest first, {"<items>": [...],
// "nextCursor": "..." or null}; in version 2026-12-01 the pages of every
// list, {"data", "hasMore", "nextCursor"} (writeCursorPage).

type actorJSON struct {
	Type string  `json:"type"`
	ID   *string `json:"id"`
	Name string  `json:"name"`
}

type auditEntryJSON struct {
	ID             string          `json:"id"`
	At             dateTime        `json:"at"`
	Actor          actorJSON       `json:"actor"`
	Action         string          `json:"action"`
	OrganisationID *string         `json:"organisationId"`
	Subject        string          `json:"subject"`
	Details        json.RawMessage `json:"details"`
}

// orNull is s, or null when s is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAuditEntry(e disburse.AuditEntry) auditEntryJSON {
	details := json.RawMessage(e.Details)
	if !json.Valid(details) {
		details = json.RawMessage(`{}`)
	}
	return auditEntryJSON{ID: e.ID, At: dateTime(e.At), Actor: actorJSON{Type: e.Actor.Type, ID: orNull(e.Actor.ID), Name: e.Actor.Name},
		Action: e.Action, OrganisationID: orNull(e.OrganisationID), Subject: e.Subject, Details: details}
}

type auditPageJSON struct {
	Entries    []auditEntryJSON `json:"entries"`
	NextCursor *string          `json:"nextCursor"`
}

type organisationSummaryJSON struct {
	ID                    string          `json:"id"`
	Name                  string          `json:"name"`
	Currency              string          `json:"currency"`
	ReferralsEnabled      bool            `json:"referralsEnabled"`
	ReversalPeriodSeconds int64           `json:"reversalPeriodSeconds"`
	ApprovalThreshold     *disburse.Money `json:"approvalThreshold,omitempty"`
	CreatedAt             dateTime        `json:"createdAt"`
	Sandbox               bool            `json:"sandbox,omitempty"` // docs/sandbox.md; absent for a live organisation
}

type organisationsPageJSON struct {
	Organisations []organisationSummaryJSON `json:"organisations"`
	NextCursor    *string                   `json:"nextCursor"`
}

func toOrganisationSummary(o disburse.Organisation) organisationSummaryJSON {
	s := toOrganisation(o, nil)
	return organisationSummaryJSON{ID: s.ID, Name: s.Name, Currency: s.Currency, ReferralsEnabled: s.ReferralsEnabled,
		ReversalPeriodSeconds: s.ReversalPeriodSeconds, ApprovalThreshold: s.ApprovalThreshold, CreatedAt: dateTime(o.CreatedAt),
		Sandbox: o.Sandbox}
}

// apiKeyInfoJSON is a key as the operator's list shows it: never its
// secret (not kept) nor its hash.
type apiKeyInfoJSON struct {
	ID        string    `json:"id"`
	Prefix    string    `json:"prefix"`
	Role      auth.Role `json:"role"`
	CreatedAt dateTime  `json:"createdAt"`
	RevokedAt dateTime  `json:"revokedAt,omitzero"`
}

func toAPIKeyInfo(k auth.APIKey) apiKeyInfoJSON {
	return apiKeyInfoJSON{ID: k.ID, Prefix: k.Prefix, Role: k.Role, CreatedAt: dateTime(k.CreatedAt), RevokedAt: dateTime(k.RevokedAt)}
}

// pageQuery is a list's cursor and size from the query string.
func pageQuery(r *http.Request) operators.PageQuery {
	q := r.URL.Query()
	return operators.PageQuery{After: q.Get("after"), Take: q.Get("take")}
}

// adminAudit is the whole log, narrowed by organisation and action.
func (s *server) adminAudit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	org, action := q.Get("organisationId"), q.Get("action")
	return writeCursorPage(w, r, []string{"audit", org, action},
		func(pq operators.PageQuery) (operators.Page[disburse.AuditEntry], error) {
			return s.operators.Audit(r.Context(), org, action, pq)
		}, toAuditEntry, auditPage)
}

// orgAudit is the organisation's own entries alone.
func (s *server) orgAudit(w http.ResponseWriter, r *http.Request, orgID string) error {
	return writeCursorPage(w, r, []string{"audit", orgID},
		func(pq operators.PageQuery) (operators.Page[disburse.AuditEntry], error) {
			return s.operators.Audit(r.Context(), orgID, "", pq)
		}, toAuditEntry, auditPage)
}

func (s *server) listOrganisations(w http.ResponseWriter, r *http.Request) error {
	return writeCursorPage(w, r, []string{"organisations"}, func(pq operators.PageQuery) (operators.Page[disburse.Organisation], error) {
		return s.operators.Organisations(r.Context(), pq)
	}, toOrganisationSummary, func(items []organisationSummaryJSON, next *string) any {
		return organisationsPageJSON{Organisations: items, NextCursor: next}
	})
}

func auditPage(items []auditEntryJSON, next *string) any {
	return auditPageJSON{Entries: items, NextCursor: next}
}

// writeCursorPage answers a page of one of the operator's reads, which
// page by key in every version: by after and take into first's shape in
// the first version, by cursor and limit into {data, hasMore,
// nextCursor} in 2026-12-01 (docs/versioning.md).
func writeCursorPage[T, J any](w http.ResponseWriter, r *http.Request, scope []string, read func(operators.PageQuery) (operators.Page[T], error),
	convert func(T) J, first func([]J, *string) any) error {
	k, err := keysetOf(r, scope...)
	if err != nil {
		return err
	}
	pq := pageQuery(r)
	if k != nil {
		pq = operators.PageQuery{After: k.after, Take: strconv.Itoa(k.limit)}
	}
	p, err := read(pq)
	if err != nil {
		return err
	}
	items := toList(p.Items, convert)
	if k == nil {
		return writeJSON(w, http.StatusOK, first(items, orNull(p.NextCursor)))
	}
	page := pageJSON[J]{Data: items, HasMore: p.NextCursor != ""}
	if page.HasMore {
		next := k.cursor(p.NextCursor)
		page.NextCursor = &next
	}
	return writeJSON(w, http.StatusOK, page)
}

func (s *server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.operators.APIKeys(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(keys, toAPIKeyInfo))
}
