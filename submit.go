package disburse

import (
	"context"
	"fmt"
	"time"
)

// Submit pays a DRAFT batch in one transaction (docs/api.md section 6): members
// are paid from the float at once, non-members' money moves to the holding
// account until they register or the reversal period ends. The database
// computes the payments' states, transfers and notifications from the rows
// it holds, in a few set-based statements (Tx.SubmitPayments), so that a
// batch of a million never passes through memory. It returns the batch;
// PaymentPages then reads the payments with their new statuses. A batch
// its organisation wants approved is not paid: the batch returned is
// DRAFT, its ApprovalID the approval requested (SubmitWatched).
func (s *Service) Submit(ctx context.Context, organisationID, batchID string) (Batch, error) {
	sub, err := s.SubmitWatched(ctx, organisationID, batchID, nil)
	return sub.Batch, err
}

// SubmitWatcher is told, inside a submit's transaction, when the batch's
// payments are paid and the transaction is about to apply the balances
// and commit: what a test does during a submit (a payee registering
// then) it does in Paid.
type SubmitWatcher interface {
	// Restart says the submit's transaction runs again from its start.
	Restart()
	// Paid says the payments are paid, uncommitted.
	Paid()
}

// Submission is what a submit did: it paid the batch, or, for a batch at
// or above its organisation's approval threshold, it paid nothing and
// requested an approval (docs/api.md section 4.3), which Approval then is.
type Submission struct {
	Batch    Batch
	Approval *Approval // nil when the batch was paid
}

// SubmitWatched submits as Submit does, telling w (when not nil) when the
// payments are paid; a submit that requested an approval pays nothing.
func (s *Service) SubmitWatched(ctx context.Context, organisationID, batchID string, w SubmitWatcher) (Submission, error) {
	var sub Submission
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		sub, moved = Submission{}, nil
		if w != nil {
			w.Restart() // a retry after a deadlock runs this again
		}
		b, err := ownBatch(ctx, tx, organisationID, batchID, true)
		if err != nil {
			return err
		}
		if err := checkSubmittable(b); err != nil {
			return err
		}
		org, err := tx.Organisation(ctx, b.OrganisationID)
		if err != nil {
			return err
		}
		if org.NeedsApproval(b.Summary) {
			a, err := s.requestApproval(ctx, tx, org, &b)
			sub = Submission{Batch: b, Approval: &a}
			return err
		}
		moved, err = s.submitLocked(ctx, tx, org, &b, w)
		sub.Batch = b
		return err
	})
	if err != nil {
		return Submission{}, err
	}
	s.Report(moved)
	return sub, nil
}

// checkSubmittable refuses a batch that cannot be submitted: not DRAFT,
// waiting for an approval, or empty.
func checkSubmittable(b Batch) error {
	if err := checkAllowed(b, ActionSubmit); err != nil {
		return err
	}
	if b.Summary.PaymentsCount == 0 {
		return Errorf(CodeBatchEmpty, "the batch has no payments to submit")
	}
	return nil
}

// submitLocked pays b, which the transaction holds locked and has found
// submittable: it locks the payout account, checks that the float covers
// the batch (else insufficient_float, nothing written), pays every page,
// writes the batch OPEN or CLOSED with its events and the audit entry,
// and returns what moved. An approval runs it as the organisation's own
// submit does, its approver the actor.
func (s *Service) submitLocked(ctx context.Context, tx Tx, org Organisation, b *Batch, w SubmitWatcher) (moves, error) {
	if err := checkFloat(ctx, tx, *b); err != nil {
		return nil, err
	}
	now, moved, err := s.pay(ctx, tx, org, b, w)
	if err != nil {
		return nil, err
	}
	if err := openSubmitted(ctx, tx, org, b, now); err != nil {
		return nil, err
	}
	return moved, s.audit(ctx, tx, ActorOf(ctx), "batch.submitted", org.ID, b.ID, map[string]any{
		"paymentsCount": b.Summary.PaymentsCount, "paymentsAmount": b.Summary.PaymentsAmount.String(), "status": b.Status})
}

// checkFloat locks the batch's payout account and refuses a batch that
// needs more than it holds: paymentsAmount + referralsAmount.
func checkFloat(ctx context.Context, tx Tx, b Batch) error {
	float, err := tx.LockAccount(ctx, b.AccountID)
	if err != nil {
		return err
	}
	required := b.Summary.PaymentsAmount + b.Summary.ReferralsAmount
	if float.Balance < required {
		return &Error{Code: CodeInsufficientFloat, Message: fmt.Sprintf("the payout account holds %s, the batch needs %s", float.Balance, required), Required: required, Available: float.Balance}
	}
	return nil
}

// pay pays the batch's DRAFT payments in the database (Tx.SubmitPayments),
// then applies what they moved to the balances, once per account, in the
// accounts' lock order (docs/ledger.md, "Lock order"), and returns the
// submit's time and what it moved. Membership is read at submit.
func (s *Service) pay(ctx context.Context, tx Tx, org Organisation, b *Batch, w SubmitWatcher) (time.Time, moves, error) {
	now := s.Now()
	plan := SubmitPlan{BatchID: b.ID, OrganisationID: org.ID, Sandbox: org.Sandbox, Currency: org.Currency,
		PayoutAccountID: b.AccountID, HoldingAccountID: org.HoldingAccountID, Now: now, Due: now.Add(org.ReversalPeriod)}
	plan.SMSHead, plan.SMSTail = smsParts(org, plan.Due)
	plan.PushHead, plan.PushTail = pushParts(org)
	totals, err := tx.SubmitPayments(ctx, plan)
	if err != nil {
		return time.Time{}, nil, err
	}
	if w != nil {
		w.Paid()
	}
	changes, moved := make(BalanceChanges), moves(nil)
	for _, t := range totals {
		changes[b.AccountID] -= t.Amount
		changes[t.To] += t.Amount
		if mk, ok := kindOf(t.Kind); ok && !org.Sandbox { // a sandbox's money is no live figure
			moved.addTotal(mk, org.Currency, t.Amount, paymentsOf(t))
		}
		b.Summary.submitted(t)
	}
	if b.Summary.DraftCount != 0 || b.Summary.DraftAmount != 0 {
		return time.Time{}, nil, fmt.Errorf("submit of batch %s: %d payments left DRAFT", b.ID, b.Summary.DraftCount)
	}
	return now, moved, tx.ApplyBalances(ctx, changes)
}

// paymentsOf is how many payments' payment legs t sums.
func paymentsOf(t LegTotal) int64 {
	if t.Leg == LegPayment {
		return t.Count
	}
	return 0
}

// openSubmitted writes the paid batch OPEN, or CLOSED when nothing is
// left pending, with its events.
func openSubmitted(ctx context.Context, tx Tx, org Organisation, b *Batch, now time.Time) error {
	b.SubmittedAt = now
	b.Status = BatchOpen
	if b.Summary.nothingPending() {
		b.Status, b.ClosedAt = BatchClosed, now
	} else {
		// The date pay gave every held leg: the reversal sweep finds
		// the batch by it (Tx.ClaimDueLegs).
		b.ReversalDueAt = now.Add(org.ReversalPeriod)
		if err := tx.InsertMemberCheck(ctx, b.ID, now); err != nil {
			// A payee may register before this commits, unseen by both.
			return err
		}
	}
	if err := tx.UpdateBatch(ctx, *b); err != nil {
		return err
	}
	return insertEvents(ctx, tx, submitEvents(*b)...)
}
