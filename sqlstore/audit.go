package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/disburse/disburse"
)

// The audit log (migration 00011): written inside the money transaction
// that made the change, read by the portal.

const auditColumns = `id, at, actor, action, organisation_id, subject, before, after`

func (t *tx) InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error {
	cols := []Column{
		IDCol("id", func(i int) string { return es[i].ID }),
		TimeCol("at", func(i int) time.Time { return es[i].At }),
		TextCol("actor", func(i int) string { return es[i].Actor }),
		TextCol("action", func(i int) string { return es[i].Action }),
		IDCol("organisation_id", func(i int) string { return es[i].OrganisationID }),
		TextCol("subject", func(i int) string { return es[i].Subject }),
		TextCol("before", func(i int) string { return es[i].Before }),
		TextCol("after", func(i int) string { return es[i].After }),
	}
	return t.insertRows(ctx, "audit_log", cols, len(es))
}

// AuditEntries pages by (at, id) from the entry before: the same cost on
// the first page and the thousandth.
func (t *tx) AuditEntries(ctx context.Context, organisationID, before string, limit int) ([]disburse.AuditEntry, error) {
	var where []string
	var args []any
	if organisationID != "" {
		where, args = append(where, "organisation_id = ?"), append(args, organisationID)
	}
	if before != "" {
		where, args = append(where, "(at, id) < (SELECT b.at, b.id FROM audit_log b WHERE b.id = ?)"), append(args, before)
	}
	query := `SELECT ` + auditColumns + ` FROM audit_log`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	return list(ctx, t, "audit log", func(r *sql.Rows) (disburse.AuditEntry, error) {
		var e disburse.AuditEntry
		return e, r.Scan(&e.ID, at(&e.At), &e.Actor, &e.Action, opt(&e.OrganisationID), &e.Subject, &e.Before, &e.After)
	}, query+` ORDER BY at DESC, id DESC LIMIT ?`, append(args, limit)...)
}
