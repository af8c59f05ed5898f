package sqlstore

import (
	"context"
	"fmt"

	"github.com/disburse/disburse/portal/backoffice"
)

// DraftLegs counts in one pass over the batch's DRAFT payments: a payee
// who was a member when the payment was added is one still (members are
// never removed), so only the others, and referral legs, are looked up in
// members by its key, each by an EXISTS that CASE runs only for them. The
// rows are grouped by the two answers, so that each is worked out once a
// row (a column used in several sums would be, on PostgreSQL, once a
// sum), and the four groups added up here. One statement however many
// payments the batch holds (docs/benchmarks.md, "A submit's preview").
func (t *tx) DraftLegs(ctx context.Context, batchID string) (backoffice.DraftLegs, error) {
	return t.draftLegs(ctx, batchID, "members m WHERE", "members r WHERE")
}

// SandboxDraftLegs is DraftLegs for a batch of a sandbox, whose members
// are its own (migration 00023).
func (t *tx) SandboxDraftLegs(ctx context.Context, batchID string) (backoffice.DraftLegs, error) {
	return t.draftLegs(ctx, batchID, "sandbox_members m WHERE m.organisation_id = p.organisation_id AND",
		"sandbox_members r WHERE r.organisation_id = p.organisation_id AND")
}

// draftLegs is DraftLegs with the members of the payee (aliased m) and of
// the referral (r) found in the tables and conditions given.
func (t *tx) draftLegs(ctx context.Context, batchID, payeeMembers, referralMembers string) (backoffice.DraftLegs, error) {
	rows, err := t.query(ctx, `SELECT paid, referral_paid, COUNT(*), CAST(SUM(amount) AS BIGINT),
			CAST(SUM(CASE WHEN referral_amount > 0 THEN 1 ELSE 0 END) AS BIGINT), CAST(SUM(referral_amount) AS BIGINT)
		FROM (SELECT p.amount, p.referral_amount,
			CASE WHEN p.is_member THEN TRUE
				ELSE EXISTS (SELECT 1 FROM `+payeeMembers+` m.msisdn = p.msisdn) END AS paid,
			CASE WHEN p.referral_amount > 0 THEN EXISTS (SELECT 1 FROM `+referralMembers+` r.msisdn = p.referral_msisdn)
				ELSE FALSE END AS referral_paid
			FROM payments p WHERE p.batch_id = ? AND p.status = 'DRAFT') legs
		GROUP BY paid, referral_paid`, batchID)
	if err != nil {
		return backoffice.DraftLegs{}, fmt.Errorf("draft legs: %w", err)
	}
	defer rows.Close()
	var l backoffice.DraftLegs
	for rows.Next() {
		var paid, referralPaid bool
		var payments, referrals backoffice.LegTotal
		if err := rows.Scan(&paid, &referralPaid, &payments.Count, &payments.Amount, &referrals.Count, &referrals.Amount); err != nil {
			return backoffice.DraftLegs{}, fmt.Errorf("draft legs: %w", err)
		}
		legs, referralLegs := &l.Held, &l.ReferralsHeld
		if paid {
			legs = &l.Paid
		}
		if referralPaid {
			referralLegs = &l.ReferralsPaid
		}
		legs.Count, legs.Amount = legs.Count+payments.Count, legs.Amount+payments.Amount
		referralLegs.Count, referralLegs.Amount = referralLegs.Count+referrals.Count, referralLegs.Amount+referrals.Amount
	}
	if err := rows.Err(); err != nil {
		return backoffice.DraftLegs{}, fmt.Errorf("draft legs: %w", err)
	}
	return l, nil
}
