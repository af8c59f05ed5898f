package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/disburse/disburse"
)

// batchColumns lists the stored summary in the order of disburse.Summary.
const batchColumns = `id, organisation_id, account_id, name, external_id, status,
	payments_amount, payments_count, referrals_amount, draft_amount, draft_count,
	pending_amount, pending_count, settled_amount, settled_count,
	cancelled_amount, cancelled_count, held_amount,
	created_at, submitted_at, closed_at, reversal_due_at, approval_id`

// summaryColumns are the summary's columns, in the order of summaryArgs.
var summaryColumns = []string{"payments_amount", "payments_count", "referrals_amount", "draft_amount", "draft_count",
	"pending_amount", "pending_count", "settled_amount", "settled_count",
	"cancelled_amount", "cancelled_count", "held_amount"}

// summaryFields are the destinations or values of the summary columns.
func summaryFields(s *disburse.Summary) []any {
	return []any{&s.PaymentsAmount, &s.PaymentsCount, &s.ReferralsAmount, &s.DraftAmount, &s.DraftCount,
		&s.PendingAmount, &s.PendingCount, &s.SettledAmount, &s.SettledCount,
		&s.CancelledAmount, &s.CancelledCount, &s.HeldAmount}
}

// summaryArgs are the summary's values as query arguments.
func summaryArgs(s disburse.Summary) []any {
	return []any{int64(s.PaymentsAmount), s.PaymentsCount, int64(s.ReferralsAmount), int64(s.DraftAmount), s.DraftCount,
		int64(s.PendingAmount), s.PendingCount, int64(s.SettledAmount), s.SettledCount,
		int64(s.CancelledAmount), s.CancelledCount, int64(s.HeldAmount)}
}

func scanBatch(r scanner) (disburse.Batch, error) {
	var b disburse.Batch
	return b, r.Scan(batchFields(&b)...)
}

// batchFields are the scan destinations of batchColumns.
func batchFields(b *disburse.Batch) []any {
	dest := []any{&b.ID, &b.OrganisationID, &b.AccountID, &b.Name, &b.ExternalID, &b.Status}
	dest = append(dest, summaryFields(&b.Summary)...)
	return append(dest, at(&b.CreatedAt), at(&b.SubmittedAt), at(&b.ClosedAt), at(&b.ReversalDueAt), opt(&b.ApprovalID))
}

func (t *tx) InsertBatch(ctx context.Context, b disburse.Batch) error {
	args := []any{b.ID, b.OrganisationID, b.AccountID, b.Name, b.ExternalID, string(b.Status)}
	args = append(args, summaryArgs(b.Summary)...)
	args = append(args, micros(b.CreatedAt), micros(b.SubmittedAt), micros(b.ClosedAt), micros(b.ReversalDueAt), nullID(b.ApprovalID))
	return t.insert(ctx, "batch", `INSERT INTO batches (`+batchColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
}

func (t *tx) Batch(ctx context.Context, id string) (disburse.Batch, error) {
	return t.batch(ctx, id, "")
}

func (t *tx) BatchesByID(ctx context.Context, ids []string) (map[string]disburse.Batch, error) {
	ids = distinct(ids)
	return byKey(ctx, t, "batches", `SELECT `+batchColumns+` FROM batches WHERE id IN (SELECT r.id FROM @rows AS r)`,
		ids, IDCol("id", func(i int) string { return ids[i] }),
		func(r *sql.Rows) (disburse.Batch, error) { return scanBatch(r) },
		func(b disburse.Batch) string { return b.ID })
}

func (t *tx) LockBatch(ctx context.Context, id string) (disburse.Batch, error) {
	return t.batch(ctx, id, t.e.LockClause(false))
}

func (t *tx) batch(ctx context.Context, id, lock string) (disburse.Batch, error) {
	b, err := scanBatch(t.queryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = ?`+lock, id))
	return b, found("batch", err)
}

func (t *tx) UpdateBatch(ctx context.Context, b disburse.Batch) error {
	args := []any{b.Name, b.ExternalID, string(b.Status)}
	args = append(args, summaryArgs(b.Summary)...)
	args = append(args, micros(b.SubmittedAt), micros(b.ClosedAt), micros(b.ReversalDueAt), nullID(b.ApprovalID), b.ID)
	return t.update(ctx, "batch", `UPDATE batches SET name = ?, external_id = ?, status = ?,
		payments_amount = ?, payments_count = ?, referrals_amount = ?, draft_amount = ?, draft_count = ?,
		pending_amount = ?, pending_count = ?, settled_amount = ?, settled_count = ?,
		cancelled_amount = ?, cancelled_count = ?, held_amount = ?,
		submitted_at = ?, closed_at = ?, reversal_due_at = ?, approval_id = ? WHERE id = ?`, args...)
}

// AddToSummaries updates every batch in one statement, from the summaries'
// columns, so that the rows a registration's batches share are locked for
// that one statement and the commit.
func (t *tx) AddToSummaries(ctx context.Context, ids []string, changes []disburse.Summary) ([]disburse.Batch, error) {
	values := make([][]any, len(changes))
	for i, c := range changes {
		values[i] = summaryArgs(c)
	}
	cols := []Column{IDCol("id", func(i int) string { return ids[i] })}
	var set, returning []string
	for k, name := range summaryColumns {
		cols = append(cols, IntCol(name, func(i int) int64 { return values[i][k].(int64) }))
		set = append(set, name+" = batches."+name+" + r."+name)
	}
	for name := range strings.SplitSeq(batchColumns, ",") {
		returning = append(returning, "batches."+strings.TrimSpace(name))
	}
	byID := make(map[string]disburse.Batch, len(ids))
	err := t.bulkLater(ctx, `UPDATE batches SET `+strings.Join(set, ", ")+` FROM @rows AS r WHERE batches.id = r.id
		RETURNING `+strings.Join(returning, ", "),
		nil, len(ids), cols, func(r Rows) error {
			b, err := scanBatch(r)
			byID[b.ID] = b
			return err
		}, func(_ int64, err error) error { return err })
	if err != nil {
		return nil, fmt.Errorf("add to batch summaries: %w", err)
	}
	out := make([]disburse.Batch, len(ids))
	for i, id := range ids {
		b, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("add to batch summaries: batch %s: %w", id, disburse.ErrNotFound)
		}
		out[i] = b
	}
	return out, nil
}

// Batches lists newest first; ties by id, descending too, so that of two
// batches created in the same microsecond the later (UUIDv7) comes first.
func (t *tx) Batches(ctx context.Context, organisationID string, f disburse.BatchFilter) ([]disburse.Batch, error) {
	where, args := []string{"organisation_id = ?"}, []any{organisationID}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.ExternalID != "" {
		where, args = append(where, "external_id = ?"), append(args, f.ExternalID)
	}
	if f.After != "" { // a key, not an offset (docs/versioning.md)
		where = append(where, "(created_at, id) < (SELECT a.created_at, a.id FROM batches a WHERE a.id = ? AND a.organisation_id = ?)")
		args = append(args, f.After, organisationID)
	}
	args = append(args, limit(f.Take), f.Skip)
	return list(ctx, t, "batches", func(r *sql.Rows) (disburse.Batch, error) { return scanBatch(r) },
		`SELECT `+batchColumns+` FROM batches WHERE `+strings.Join(where, " AND ")+
			` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, args...)
}

// placeholders returns n comma-separated ?.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// limit is the LIMIT of a page of take rows; 0 means no limit.
func limit(take int) int64 {
	if take <= 0 {
		return math.MaxInt64
	}
	return int64(take)
}
