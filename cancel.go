package disburse

import "context"

// Cancel cancels a DRAFT or OPEN batch (contract section 6). From DRAFT no
// money has moved, so its payments are simply CANCELLED. From OPEN every
// PENDING leg's funds return from the holding account to the float; SETTLED
// legs stay settled.
func (s *Service) Cancel(ctx context.Context, organisationID, batchID string) (Batch, error) {
	var b Batch
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if b, err = ownBatch(ctx, tx, organisationID, batchID, true); err != nil {
			return err
		}
		if err := checkAllowed(b, ActionCancel); err != nil {
			return err
		}
		// Lock the float before the payments, in the fixed order.
		if _, err := tx.LockAccount(ctx, b.AccountID); err != nil {
			return err
		}
		from := PaymentDraft
		if b.Status == BatchOpen {
			from = PaymentPending
		}
		payments, err := tx.Payments(ctx, b.ID, PaymentFilter{})
		if err != nil {
			return err
		}
		org, err := tx.Organisation(ctx, b.OrganisationID)
		if err != nil {
			return err
		}
		m := movement{now: s.now()}
		for i := range payments {
			old := payments[i]
			returnLegs(&m, org, b, &payments[i], from, TransferCancel)
			m.record(&b.Summary, old, payments[i])
		}
		b.Status, b.ClosedAt = BatchCancelled, m.now
		if err := m.flush(ctx, tx); err != nil {
			return err
		}
		return tx.UpdateBatch(ctx, b)
	})
	return b, err
}

// returnLegs cancels every leg of p that is in status from. A PENDING leg's
// money goes back from the holding account to the batch's float, as a new
// transfer of the given kind (a reversal never edits an old transfer).
func returnLegs(m *movement, org Organisation, b Batch, p *Payment, from PaymentStatus, kind TransferKind) {
	for _, l := range legsOf(p) {
		if *l.status != from {
			continue
		}
		if from == PaymentPending {
			m.transfer(org.HoldingAccountID, b.AccountID, l.amount, kind, *p, l.which)
		}
		*l.status = PaymentCancelled
		if l.which == LegPayment {
			p.CancelledAt = m.now
		}
	}
}
