package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/disburse/disburse"
)

// A payment's columns, its scans and the columns of its insert
// (paymentColumns, scanPayment, scanPaymentValues, paymentFieldColumns)
// are generated from disburse.Payment into payments_gen.go;
// TestPaymentsGenerated fails when that file is stale.
//
//go:generate go run github.com/disburse/disburse/internal/gen paymentsql payments_gen.go

func scanRowPayment(r *sql.Rows) (disburse.Payment, error) { return scanPayment(r) }

func scanPagePayment(r PageRows) (disburse.Payment, error) { return scanPaymentValues(r.Values()) }

// paymentStateColumns are the columns UpdatePaymentStates writes, with the
// id that finds the row.
func paymentStateColumns(ps []disburse.Payment) []Column {
	return []Column{
		IDCol("id", func(i int) string { return ps[i].ID }),
		TextCol("status", func(i int) string { return string(ps[i].Status) }),
		BoolCol("is_member", func(i int) bool { return ps[i].IsMember }),
		TimeCol("submitted_at", func(i int) time.Time { return ps[i].SubmittedAt }),
		TimeCol("settled_at", func(i int) time.Time { return ps[i].SettledAt }),
		TimeCol("reversal_due_at", func(i int) time.Time { return ps[i].ReversalDueAt }),
		TimeCol("cancelled_at", func(i int) time.Time { return ps[i].CancelledAt }),
		TextCol("referral_status", func(i int) string { return string(ps[i].ReferralStatus) }),
		TimeCol("referral_settled_at", func(i int) time.Time { return ps[i].ReferralSettledAt }),
	}
}

// InsertPayments inserts in input order, so that the engine-assigned seq,
// which Payments orders by, is the order of addition. The unique index
// payments_external_id (migration 00016) refuses a taken external id:
// ErrDuplicate, through insertRows.
func (t *tx) InsertPayments(ctx context.Context, ps []disburse.Payment) error {
	return t.InsertPaymentsAsReady(ctx, ps, AllReady(len(ps)))
}

func (t *tx) InsertPaymentsAsReady(ctx context.Context, ps []disburse.Payment, ready func() (int, error)) error {
	cols := append(paymentFieldColumns(ps),
		OptTextCol("held_external_id", func(i int) string { return heldExternalID(ps[i]) }))
	return t.insertRowsAsReady(ctx, "payments", cols, len(ps), ready)
}

// heldExternalID is what held_external_id starts as: the external id,
// unless there is none or the payment is inserted deleted.
func heldExternalID(p disburse.Payment) string {
	if p.Status == disburse.PaymentDeleted {
		return ""
	}
	return p.ExternalID
}

func (t *tx) Payment(ctx context.Context, id string) (disburse.Payment, error) {
	p, err := scanPayment(t.queryRow(ctx, `SELECT `+paymentColumns+` FROM payments p WHERE p.id = ?`, id))
	return p, found("payment", err)
}

func (t *tx) PaymentsByID(ctx context.Context, ids []string) (map[string]disburse.Payment, error) {
	ids = distinct(ids)
	return byKey(ctx, t, "payments", `SELECT `+paymentColumns+` FROM payments p WHERE p.id IN (SELECT r.id FROM @rows AS r)`,
		ids, IDCol("id", func(i int) string { return ids[i] }), scanRowPayment,
		func(p disburse.Payment) string { return p.ID })
}

func (t *tx) Payments(ctx context.Context, batchID string, f disburse.PaymentFilter) ([]disburse.Payment, error) {
	query, args := `SELECT `+paymentColumns+` FROM payments p WHERE p.batch_id = ?`, []any{batchID}
	if f.Status != "" {
		query, args = query+` AND p.status = ?`, append(args, string(f.Status))
	}
	if f.After != "" {
		// A key, not an offset: the page starts at the index's entry
		// after the last payment of the page before, at any depth.
		query, args = query+` AND p.seq > (SELECT a.seq FROM payments a WHERE a.id = ? AND a.batch_id = ?)`, append(args, f.After, batchID)
	}
	rows, err := t.query(ctx, query+` ORDER BY p.seq LIMIT ? OFFSET ?`, append(args, limit(f.Take), f.Skip)...)
	if err != nil {
		return nil, fmt.Errorf("payments: %w", err)
	}
	// Room for a page at once: grown by append, a page took several times
	// its size.
	var out []disburse.Payment
	if f.Take > 0 {
		out = make([]disburse.Payment, 0, min(f.Take, 10_000))
	}
	return collect("payments", rows, out, scanRowPayment)
}

func (t *tx) ExternalIDsInUse(ctx context.Context, organisationID string, ids []string, exceptBatchID string) ([]string, error) {
	ids = distinct(ids)
	// The conditions are the unique index's, so that the engine may use
	// it. The batch exception is added only when there is one: an empty id
	// compared with a uuid column fails on PostgreSQL.
	query := `SELECT DISTINCT p.held_external_id FROM @rows AS r CROSS JOIN payments p
		WHERE p.organisation_id = ? AND p.held_external_id = r.external_id`
	args := []any{organisationID}
	if exceptBatchID != "" {
		query, args = query+` AND p.batch_id <> ?`, append(args, exceptBatchID)
	}
	var inUse []string
	_, err := t.bulk(ctx, query, args, len(ids), []Column{TextCol("external_id", func(i int) string { return ids[i] })},
		func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			inUse = append(inUse, id)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("external ids in use: %w", err)
	}
	slices.Sort(inUse)
	return inUse, nil
}

// deleteDrafts marks DRAFT payments DELETED, with their referral legs,
// and frees their external ids (held_external_id, migration 00016).
const deleteDrafts = `UPDATE payments SET status = 'DELETED', held_external_id = NULL,
	referral_status = CASE WHEN referral_status = 'DRAFT' THEN 'DELETED' ELSE referral_status END
	WHERE status = 'DRAFT' AND `

func (t *tx) DeleteDraftPayments(ctx context.Context, batchID string) error {
	if _, err := t.exec(ctx, deleteDrafts+`batch_id = ?`, batchID); err != nil {
		return fmt.Errorf("delete draft payments: %w", err)
	}
	return nil
}

func (t *tx) DeleteDraftPayment(ctx context.Context, id string) error {
	return t.update(ctx, "draft payment", deleteDrafts+`id = ?`, id)
}

// pendingLegsQueries are InsertMembersLockingLegs' statements of the
// legs pending to msisdns, locked, and of their organisations, and the
// arguments of each: the union of two index lookups of each msisdn
// (LookupEach; one partial index per leg, on the held flags of migration
// 00005), each payment once, looked up by id and locked in seq order
// (EachByKey). The lock is inside EachByKey's lookup, since PostgreSQL
// allows none on a UNION. Every lookup is by an index in any plan:
// PostgreSQL keeps the plan of a statement sent in a pipeline, and one
// made while payments was empty, as a new deployment's and the bench's are
// when the first members register, scanned every payment for every
// registration (docs/benchmarks.md, "Registration"). The organisations'
// statement looks the legs up again rather than wait for the first's
// answer: a few index lookups, 0.23 ms of the database's time a group of
// 60, against a round trip. A held leg may still be DRAFT (migration
// 00017), hence the statuses.
func pendingLegsQueries(d Dialect, msisdns []string) (legs, organisations string, args []any) {
	payees, payeesArg := d.LookupEach("payments", "id, seq, organisation_id", "msisdn", "held AND status = 'PENDING'", msisdns)
	referrals, referralsArg := d.LookupEach("payments", "id, seq, organisation_id", "referral_msisdn",
		"referral_held AND referral_status = 'PENDING'", msisdns)
	found := `SELECT id, seq, organisation_id FROM (` + payees + ` UNION ` + referrals + `) AS g`
	legs = d.EachByKey(found+` ORDER BY seq`, "id", "payments", "p", paymentColumns, d.LockClause(false), "seq")
	organisations = d.EachByKey(`SELECT DISTINCT organisation_id AS id FROM (`+found+`) AS f`, "id", "organisations", "o", organisationColumns, "", "")
	return d.Rebind(legs), d.Rebind(organisations), []any{payeesArg, referralsArg}
}

func (t *tx) LockPendingLegsOf(ctx context.Context, batchID string) ([]disburse.Payment, error) {
	return list(ctx, t, "pending legs of batch", scanRowPayment, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.batch_id = ? AND (p.held OR p.referral_held) AND `+pendingLeg+`
		ORDER BY p.seq`+t.e.LockClause(false), batchID)
}

// pendingLeg keeps, of the held legs (an index's predicate), the PENDING
// ones: on PostgreSQL a DRAFT leg to a non-member is held too (migration
// 00017).
const pendingLeg = `(p.status = 'PENDING' OR p.referral_status = 'PENDING')`

// ClaimDueLegs goes through the OPEN batches whose reversal date has
// passed, in date order, and takes each one's held legs in seq order until
// it has n. The date it finds them by is the batch's (migration 00017):
// a payment's own reversal_due_at is in no index, so that a submit updates
// its payments in place, but each leg is still held to it.
func (t *tx) ClaimDueLegs(ctx context.Context, now time.Time, n int) ([]disburse.Payment, error) {
	batches, err := t.dueBatches(ctx, now, n)
	if err != nil {
		return nil, err
	}
	var out []disburse.Payment
	for _, id := range batches {
		legs, err := list(ctx, t, "due legs", scanRowPayment, `SELECT `+paymentColumns+` FROM payments p
			WHERE p.batch_id = ? AND (p.held OR p.referral_held) AND `+pendingLeg+` AND p.reversal_due_at <= ?
			ORDER BY p.seq LIMIT ?`+t.e.LockClause(true), id, micros(now), n-len(out))
		if err != nil {
			return nil, err
		}
		if out = append(out, legs...); len(out) == n {
			break
		}
	}
	return out, nil
}

// dueBatches lists up to n OPEN batches whose legs may be due, in the
// order of their reversal dates: n is enough when each gives a leg, and a
// batch whose legs another sweep holds waits for the next claim. A batch
// without a date was submitted by a release from before migration 00017
// (during a rolling deploy) and counts when its first held leg is due.
func (t *tx) dueBatches(ctx context.Context, now time.Time, n int) ([]string, error) {
	type due struct {
		id    string
		dated bool
	}
	found, err := list(ctx, t, "due batches", func(r *sql.Rows) (due, error) {
		var d due
		err := r.Scan(&d.id, &d.dated)
		return d, err
	}, `SELECT id, reversal_due_at IS NOT NULL FROM batches
		WHERE status = 'OPEN' AND (reversal_due_at <= ? OR reversal_due_at IS NULL)
		ORDER BY reversal_due_at, id LIMIT ?`, micros(now), n)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range found {
		if !d.dated {
			var first sql.NullInt64
			err := t.queryRow(ctx, `SELECT p.reversal_due_at FROM payments p
				WHERE p.batch_id = ? AND (p.held OR p.referral_held) AND `+pendingLeg+`
				ORDER BY p.seq LIMIT 1`, d.id).Scan(&first)
			if errors.Is(err, sql.ErrNoRows) || (err == nil && first.Int64 > now.UnixMicro()) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("due batches: %w", err)
			}
		}
		out = append(out, d.id)
	}
	return out, nil
}
