package backoffice

import (
	"context"

	"github.com/disburse/disburse"
)

// LegTotal counts legs and sums their amounts.
type LegTotal struct {
	Count  int64
	Amount disburse.Money
}

// DraftLegs are a DRAFT batch's legs by what a submit would do with each
// now (docs/api.md section 6): pay a member at once, or hold the money for
// a payee who is not one. A payment's own legs and its referral legs
// apart, as a batch's summary keeps them.
type DraftLegs struct {
	Paid, Held                   LegTotal
	ReferralsPaid, ReferralsHeld LegTotal
}

// Preview is what a submit or a cancel of a batch would do now, for the
// portal's confirmations and approval pages (docs/portal.md): the batch,
// its payout account, a DRAFT batch's legs by their payees' membership
// now, and whether a submit would wait for an approval. Membership may
// change before the click: the submit reads it again.
type Preview struct {
	Batch         disburse.Batch
	Float         disburse.Account
	Legs          DraftLegs // zero unless the batch is DRAFT
	NeedsApproval bool
}

// FloatAfterSubmit is the payout account's balance once a submit has paid
// the batch; below zero, the submit would fail for too little float.
func (p Preview) FloatAfterSubmit() disburse.Money {
	return p.Float.Balance - p.Batch.Summary.PaymentsAmount - p.Batch.Summary.ReferralsAmount
}

// FloatAfterCancel is the payout account's balance once a cancel has
// returned the batch's pending legs (none from DRAFT).
func (p Preview) FloatAfterCancel() disburse.Money {
	return p.Float.Balance + p.Batch.Summary.HeldAmount
}

// Short is how much the float lacks for a submit of the batch, or zero.
func (p Preview) Short() disburse.Money { return max(0, -p.FloatAfterSubmit()) }

// Preview reads what a submit or a cancel of a batch within scope (an
// organisation user's: theirs) would do now, in one snapshot; another
// organisation's batch is not found. The legs are counted by one statement
// (Tx.DraftLegs), never a payment at a time: a batch holds up to a million.
func (s *Service) Preview(ctx context.Context, scope, batchID string) (Preview, error) {
	return read(ctx, s.Store, func(tx Tx) (Preview, error) {
		b, err := scopedRow(ctx, tx, scope, batchID, "batch", tx.Batch, batchOrganisation)
		if err != nil {
			return Preview{}, err
		}
		p := Preview{Batch: b}
		if p.Float, err = tx.Account(ctx, b.AccountID); err != nil {
			return Preview{}, err
		}
		if b.Status != disburse.BatchDraft {
			return p, nil
		}
		org, err := tx.Organisation(ctx, b.OrganisationID)
		if err != nil {
			return Preview{}, err
		}
		p.NeedsApproval = b.ApprovalID == "" && org.NeedsApproval(b.Summary)
		p.Legs, err = draftLegsIn(ctx, tx, org, b.ID)
		return p, err
	})
}
