package disburse

import (
	"context"
	"errors"
	"time"
)

// errBatchSubmitted ends a cancel that read a DRAFT batch and, once it held
// the batch, found it OPEN: a submit committed in between. The cancel runs
// again on the OPEN path, which locks in another order.
var errBatchSubmitted = errors.New("batch submitted while cancelling")

// Cancel cancels a DRAFT or OPEN batch (docs/api.md section 6). From DRAFT no
// money has moved, so its payments are simply CANCELLED. From OPEN every
// PENDING leg's funds return from the holding account to the float; SETTLED
// legs stay settled.
func (s *Service) Cancel(ctx context.Context, organisationID, batchID string) (Batch, error) {
	b, err := s.cancel(ctx, organisationID, batchID)
	if errors.Is(err, errBatchSubmitted) {
		// A batch is submitted once: the second run reads it OPEN.
		b, err = s.cancel(ctx, organisationID, batchID)
	}
	return b, err
}

// cancel takes its locks in the order of docs/ledger.md ("Lock order").
// From OPEN: the batch's pending payments, then accounts (the balances the
// returns change), then the batch, as a registration or a reversal sweep
// takes them, so that none of them holds what another waits for. From
// DRAFT no money moves: the batch, then its payments, as every use case of
// a DRAFT batch takes them.
func (s *Service) cancel(ctx context.Context, organisationID, batchID string) (Batch, error) {
	var b Batch
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		read, err := ownBatch(ctx, tx, organisationID, batchID, false)
		if err != nil {
			return err
		}
		if err := checkAllowed(read, ActionCancel); err != nil {
			return err
		}
		m := writeBuffer{now: s.Now()}
		defer func() { moved = m.moved }() // this run's, should the store run it again
		if read.Status == BatchDraft {
			if b, err = s.cancelDraft(ctx, tx, &m, read.ID); err != nil {
				return err
			}
			return s.cancelled(ctx, tx, b, m.now)
		}
		// Locked and read as they are now: a registration or a sweep that
		// had one of them has committed, and it is pending no more.
		payments, err := tx.LockPendingLegsOf(ctx, read.ID)
		if err != nil {
			return err
		}
		org, err := tx.Organisation(ctx, read.OrganisationID)
		if err != nil {
			return err
		}
		var change Summary
		for i := range payments {
			old := payments[i]
			// read.AccountID: a batch's payout account never changes.
			returnLegs(&m, org, read, &payments[i], PaymentPending, TransferCancel)
			m.record(&change, old, payments[i])
		}
		if err := m.flush(ctx, tx); err != nil {
			return err
		}
		if b, err = tx.LockBatch(ctx, read.ID); err != nil {
			return err
		}
		// Settled or reversed to the last leg since it was read: CLOSED,
		// and the transaction rolls back what it wrote.
		if err := checkAllowed(b, ActionCancel); err != nil {
			return err
		}
		b.Summary = b.Summary.add(change, 1)
		b.Status, b.ClosedAt = BatchCancelled, m.now
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.cancelled(ctx, tx, b, m.now)
	})
	if err == nil {
		s.Report(moved)
	}
	return b, err
}

// cancelled records a cancel: the organisation's event and the audit entry.
func (s *Service) cancelled(ctx context.Context, tx Tx, b Batch, now time.Time) error {
	if err := insertEvents(ctx, tx, batchEvent(EventBatchCancelled, b, now)); err != nil {
		return err
	}
	return s.audit(ctx, tx, ActorOf(ctx), "batch.cancelled", b.OrganisationID, b.ID, map[string]any{
		"cancelledAmount": b.Summary.CancelledAmount.String()})
}

// cancelDraft cancels a batch read as DRAFT: its payments become
// CANCELLED, no money moves, and an approval its submit waits for is
// CANCELLED too. The batch's lock keeps every other writer
// off its DRAFT payments: adds, deletes and submit lock the batch first.
func (s *Service) cancelDraft(ctx context.Context, tx Tx, m *writeBuffer, batchID string) (Batch, error) {
	b, err := tx.LockBatch(ctx, batchID)
	if err != nil {
		return Batch{}, err
	}
	if b.Status == BatchOpen {
		return Batch{}, errBatchSubmitted
	}
	if err := checkAllowed(b, ActionCancel); err != nil {
		return Batch{}, err
	}
	if b.ApprovalID != "" {
		// Its submit waits for an approval: the cancel withdraws it
		// (docs/api.md section 4.3), the batch locked first.
		if err := s.withdrawApproval(ctx, tx, &b); err != nil {
			return Batch{}, err
		}
	}
	payments, err := tx.Payments(ctx, b.ID, PaymentFilter{Status: PaymentDraft})
	if err != nil {
		return Batch{}, err
	}
	org, err := tx.Organisation(ctx, b.OrganisationID)
	if err != nil {
		return Batch{}, err
	}
	for i := range payments {
		old := payments[i]
		returnLegs(m, org, b, &payments[i], PaymentDraft, TransferCancel)
		m.record(&b.Summary, old, payments[i])
	}
	b.Status, b.ClosedAt = BatchCancelled, m.now
	if err := m.flush(ctx, tx); err != nil {
		return Batch{}, err
	}
	return b, tx.UpdateBatch(ctx, b)
}

// returnLegs cancels every leg of p that is in status from. A PENDING leg's
// money goes back from the holding account to the batch's float, as a new
// transfer of the given kind (a reversal never edits an old transfer).
func returnLegs(m *writeBuffer, org Organisation, b Batch, p *Payment, from PaymentStatus, kind TransferKind) {
	for _, l := range legsOf(p) {
		if *l.status != from {
			continue
		}
		if from == PaymentPending {
			m.transfer(org, org.HoldingAccountID, b.AccountID, l.amount, kind, *p, l.which)
		} else if mk, ok := kindOf(kind); ok && !org.Sandbox {
			m.moved.add(mk, org.Currency, 0, l.which) // no money moved, but the payment is counted
		}
		*l.status = PaymentCancelled
		if l.which == LegPayment {
			p.CancelledAt = m.now
		}
	}
}
