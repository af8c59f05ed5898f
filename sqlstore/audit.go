package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
)

// The audit log (migrations 00011 and 00018): written inside the
// transaction that made the change, read by the operator and by each
// organisation (operators.Tx).

const auditColumns = `id, at, actor_type, actor_id, actor, action, organisation_id, subject, details`

func (t *tx) InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error {
	cols := []Column{
		IDCol("id", func(i int) string { return es[i].ID }),
		TimeCol("at", func(i int) time.Time { return es[i].At }),
		TextCol("actor_type", func(i int) string { return es[i].Actor.Type }),
		TextCol("actor_id", func(i int) string { return es[i].Actor.ID }),
		TextCol("actor", func(i int) string { return es[i].Actor.Name }),
		TextCol("action", func(i int) string { return es[i].Action }),
		IDCol("organisation_id", func(i int) string { return es[i].OrganisationID }),
		TextCol("subject", func(i int) string { return es[i].Subject }),
		TextCol("details", func(i int) string { return es[i].Details }),
	}
	return t.insertRows(ctx, "audit_log", cols, len(es))
}

// AuditEntries pages by (at, id) from the entry f.After: the same cost on
// the first page and the thousandth. An After that names no entry (of
// f.OrganisationID's, when given) is disburse.ErrNotFound.
func (t *tx) AuditEntries(ctx context.Context, f operators.AuditFilter) ([]disburse.AuditEntry, error) {
	var where []string
	var args []any
	if f.OrganisationID != "" {
		where, args = append(where, "organisation_id = ?"), append(args, f.OrganisationID)
	}
	if f.Action != "" {
		where, args = append(where, "action = ?"), append(args, f.Action)
	}
	if f.After != "" {
		// The cursor must be an entry of the list: another organisation's
		// is no cursor of this one, and says nothing of that entry.
		cond, cargs := `id = ?`, []any{f.After}
		if f.OrganisationID != "" {
			cond, cargs = cond+` AND organisation_id = ?`, append(cargs, f.OrganisationID)
		}
		var n int
		if err := t.queryRow(ctx, `SELECT COUNT(*) FROM audit_log WHERE `+cond, cargs...).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, disburse.ErrNotFound
		}
		where, args = append(where, "(at, id) < (SELECT b.at, b.id FROM audit_log b WHERE b.id = ?)"), append(args, f.After)
	}
	query := `SELECT ` + auditColumns + ` FROM audit_log`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	return list(ctx, t, "audit log", func(r *sql.Rows) (disburse.AuditEntry, error) {
		var e disburse.AuditEntry
		return e, r.Scan(&e.ID, at(&e.At), &e.Actor.Type, &e.Actor.ID, &e.Actor.Name, &e.Action, opt(&e.OrganisationID), &e.Subject, &e.Details)
	}, query+` ORDER BY at DESC, id DESC LIMIT ?`, append(args, f.Limit)...)
}
