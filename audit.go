package disburse

import (
	"context"
	"encoding/json"
	"time"
)

// Actor names who made a change, for the audit log: a portal user's email,
// or ActorOperatorAPI.
type Actor string

// ActorOperatorAPI is the actor of every change made with the operator
// token, which names no person.
const ActorOperatorAPI Actor = "operator API"

// ActorCommandLine is the actor of changes made with the disburse command
// on the database directly (org create, serve --demo).
const ActorCommandLine Actor = "command line"

// AuditEntry is one change made through the portal or the operator API:
// who, when, what, and the state before and after it as JSON ("" where
// there was none). Entries are only ever added.
type AuditEntry struct {
	ID             string
	At             time.Time
	Actor          string
	Action         string // e.g. "organisation.settings"
	OrganisationID string // empty for changes to no organisation (members)
	Subject        string // the id (or msisdn) of what changed
	Before, After  string
}

// audit appends an entry to the log inside the change's own transaction,
// so the log holds a change exactly when the change committed.
func (s *Service) audit(ctx context.Context, tx Tx, actor Actor, action, organisationID, subject string, before, after any) error {
	return tx.InsertAudit(ctx, s.auditEntry(actor, action, organisationID, subject, before, after))
}

// auditEntry is the entry audit appends, for a caller that appends many.
func (s *Service) auditEntry(actor Actor, action, organisationID, subject string, before, after any) AuditEntry {
	return AuditEntry{
		ID: NewID(), At: s.now(), Actor: string(actor), Action: action, OrganisationID: organisationID,
		Subject: subject, Before: auditJSON(before), After: auditJSON(after),
	}
}

// auditJSON is v as JSON, or "" for nil.
func auditJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return `"unencodable"`
	}
	return string(b)
}

// AuditLog lists the audit log newest first, an organisation's alone when
// organisationID is not empty, after the entry before.
func (s *Service) AuditLog(ctx context.Context, organisationID, before string, limit int) ([]AuditEntry, error) {
	return read(ctx, s.Store, func(tx Tx) ([]AuditEntry, error) { return tx.AuditEntries(ctx, organisationID, before, limit) })
}

// auditOrganisation is what the log keeps of an organisation's state.
func auditOrganisation(o Organisation) map[string]any {
	return map[string]any{"name": o.Name, "currency": o.Currency, "referralsEnabled": o.ReferralsEnabled,
		"reversalPeriodSeconds": int64(o.ReversalPeriod / time.Second)}
}
