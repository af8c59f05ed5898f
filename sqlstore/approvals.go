package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/disburse/disburse"
)

// Approvals of submits (disburse.Tx's, approval.go; migration 00021). An
// actor is kept as the audit log keeps it: its type, id and name.

const approvalColumns = `id, organisation_id, batch_id, status,
	requested_by_type, requested_by_id, requested_by_name, requested_at,
	payments_count, payments_amount, referrals_amount,
	decided_by_type, decided_by_id, decided_by_name, decided_at, comment`

func scanApproval(r scanner) (disburse.Approval, error) {
	var a disburse.Approval
	err := r.Scan(&a.ID, &a.OrganisationID, &a.BatchID, &a.Status,
		&a.RequestedBy.Type, &a.RequestedBy.ID, &a.RequestedBy.Name, at(&a.RequestedAt),
		&a.PaymentsCount, &a.PaymentsAmount, &a.ReferralsAmount,
		&a.DecidedBy.Type, &a.DecidedBy.ID, &a.DecidedBy.Name, at(&a.DecidedAt), &a.Comment)
	return a, err
}

func (t *tx) InsertApproval(ctx context.Context, a disburse.Approval) error {
	return t.insert(ctx, "approval", `INSERT INTO approvals (`+approvalColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OrganisationID, a.BatchID, string(a.Status),
		a.RequestedBy.Type, a.RequestedBy.ID, a.RequestedBy.Name, micros(a.RequestedAt),
		a.PaymentsCount, int64(a.PaymentsAmount), int64(a.ReferralsAmount),
		a.DecidedBy.Type, a.DecidedBy.ID, a.DecidedBy.Name, micros(a.DecidedAt), a.Comment)
}

func (t *tx) Approval(ctx context.Context, id string) (disburse.Approval, error) {
	return t.approval(ctx, id, "")
}

func (t *tx) LockApproval(ctx context.Context, id string) (disburse.Approval, error) {
	return t.approval(ctx, id, t.e.LockClause(false))
}

func (t *tx) approval(ctx context.Context, id, lock string) (disburse.Approval, error) {
	a, err := scanApproval(t.queryRow(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`+lock, id))
	return a, found("approval", err)
}

func (t *tx) UpdateApproval(ctx context.Context, a disburse.Approval) error {
	return t.update(ctx, "approval", `UPDATE approvals SET status = ?,
		decided_by_type = ?, decided_by_id = ?, decided_by_name = ?, decided_at = ?, comment = ? WHERE id = ?`,
		string(a.Status), a.DecidedBy.Type, a.DecidedBy.ID, a.DecidedBy.Name, micros(a.DecidedAt), a.Comment, a.ID)
}

// Approvals pages by offset, as GET /batches does: an organisation's
// approvals are few beside its payments, and the list is the API's.
func (t *tx) Approvals(ctx context.Context, organisationID string, f disburse.ApprovalFilter) ([]disburse.Approval, error) {
	where, args := []string{"organisation_id = ?"}, []any{organisationID}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.After != "" { // a key, not an offset (docs/versioning.md)
		where = append(where, "(requested_at, id) < (SELECT a.requested_at, a.id FROM approvals a WHERE a.id = ? AND a.organisation_id = ?)")
		args = append(args, f.After, organisationID)
	}
	args = append(args, limit(f.Take), f.Skip)
	return list(ctx, t, "approvals", func(r *sql.Rows) (disburse.Approval, error) { return scanApproval(r) },
		`SELECT `+approvalColumns+` FROM approvals WHERE `+strings.Join(where, " AND ")+
			` ORDER BY requested_at DESC, id DESC LIMIT ? OFFSET ?`, args...)
}

// ApprovalsByID reads the approvals of webhook events for their delivery
// (webhooks.Tx).
func (t *tx) ApprovalsByID(ctx context.Context, ids []string) (map[string]disburse.Approval, error) {
	ids = distinct(ids)
	return byKey(ctx, t, "approvals", `SELECT `+approvalColumns+` FROM approvals WHERE id IN (SELECT r.id FROM @rows AS r)`,
		ids, IDCol("id", func(i int) string { return ids[i] }),
		func(r *sql.Rows) (disburse.Approval, error) { return scanApproval(r) },
		func(a disburse.Approval) string { return a.ID })
}
