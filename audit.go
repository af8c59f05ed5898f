package disburse

import (
	"context"
	"encoding/json"
	"time"
)

// Actor is who made a change, as the audit log names it (docs/api.md
// section 7, "Audit log"): Type says which kind of credential, ID and Name
// which one.
type Actor struct {
	Type string // one of the Actor… kinds below
	ID   string // the API key's, operator token's or portal user's id; empty for the others
	Name string // the key's prefix, the token's name, the user's email
}

// The kinds of actor.
const (
	ActorAPIKey        = "apiKey"        // an organisation's API key, by id and prefix
	ActorOperatorToken = "operatorToken" // an operator token, by name ("bootstrap": --admin-token)
	ActorPortalUser    = "portalUser"    // a portal user, by email
	ActorCommandLine   = "commandLine"   // the disburse command on the database directly
	ActorSystem        = "system"        // the service itself (the worker)
)

// CommandLine is the actor of changes made with the disburse command on
// the database directly (org create, operator-token, serve --demo).
var CommandLine = Actor{Type: ActorCommandLine, Name: "command line"}

// Same reports whether a and b are one credential: of the same kind,
// with the same id. An approval's requester may not decide it (docs/api.md
// section 4.3), whatever name either carries; two actors without an id
// (the system) are the same.
func (a Actor) Same(b Actor) bool { return a.Type == b.Type && a.ID == b.ID }

type actorKey struct{}

// WithActor returns ctx carrying the actor of the changes made with it:
// the API's authentication puts the caller's credential there, and a use
// case without an explicit actor writes it into the audit log.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is the actor WithActor put in ctx, or the system.
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Type: ActorSystem, Name: "system"}
}

// AuditEntry is one change: who, when, what, and its details as a JSON
// object (for a change of state, its "before" and "after"). Entries are
// only ever added, each in the transaction of its change.
type AuditEntry struct {
	ID             string
	At             time.Time
	Actor          Actor
	Action         string // a dotted name, e.g. "batch.submitted" (docs/api.md section 7)
	OrganisationID string // empty for changes to no organisation (members)
	Subject        string // the id (or msisdn) of what changed
	Details        string
}

// audit appends an entry to the log inside the change's own transaction,
// so the log holds a change exactly when the change committed.
func (s *Service) audit(ctx context.Context, tx Tx, actor Actor, action, organisationID, subject string, details any) error {
	return tx.InsertAudit(ctx, NewAuditEntry(s.Now(), actor, action, organisationID, subject, details))
}

// NewAuditEntry is an entry at at, its details v as JSON (nil: {}), for
// the features beside the domain that append to the log in their own
// transactions.
func NewAuditEntry(at time.Time, actor Actor, action, organisationID, subject string, details any) AuditEntry {
	return AuditEntry{ID: NewID(), At: at, Actor: actor, Action: action, OrganisationID: organisationID,
		Subject: subject, Details: auditJSON(details)}
}

// Change is the details of a change of state.
func Change(before, after any) map[string]any {
	return map[string]any{"before": before, "after": after}
}

// auditJSON is v as a JSON object, {} for nil.
func auditJSON(v any) string {
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return `{"unencodable": true}`
	}
	return string(b)
}

// AuditOrganisation is what the log keeps of an organisation's state.
func AuditOrganisation(o Organisation) map[string]any {
	var threshold any // null while approval is off
	if o.ApprovalThreshold != nil {
		threshold = o.ApprovalThreshold.String()
	}
	return map[string]any{"name": o.Name, "currency": o.Currency, "referralsEnabled": o.ReferralsEnabled,
		"reversalPeriodSeconds": int64(o.ReversalPeriod / time.Second), "approvalThreshold": threshold}
}

// auditBatch is what the log keeps of a batch's state.
func auditBatch(b Batch) map[string]any {
	return map[string]any{"name": b.Name, "externalId": b.ExternalID, "status": b.Status}
}
