package disburse

import (
	"context"
	"strconv"
)

// AddPayments validates and adds payments to a DRAFT batch, all or nothing
// (spec 4.2, contract 4.1). It returns the batch and the payments added.
func (s *Service) AddPayments(ctx context.Context, organisationID, batchID string, in AddPaymentsInput) (Batch, []Payment, error) {
	if !ValidID(batchID) {
		return Batch{}, nil, notFound("batch")
	}
	var v Validation
	if !in.WrongTypes.report(&v, -1, "ClearExisting") && in.ClearExisting == nil {
		v.Add(-1, "ClearExisting", "", "clearExisting is required (true or false)")
	}
	switch n := len(in.Payments); {
	case n == 0:
		v.Add(-1, "Payments", "", "payments must hold at least one payment")
	case n > s.Limits.MaxPaymentsPerRequest:
		v.Add(-1, "Payments", strconv.Itoa(n), "at most "+strconv.Itoa(s.Limits.MaxPaymentsPerRequest)+" payments per request")
	}
	if len(in.Payments) > s.Limits.MaxPaymentsPerRequest {
		return Batch{}, nil, v.Err() // too many to be worth validating one by one
	}

	var org Organisation
	err := s.Store.Read(ctx, func(tx Tx) error {
		var err error
		org, err = tx.Organisation(ctx, organisationID)
		return err
	})
	if err != nil {
		return Batch{}, nil, err
	}
	// The per-payment checks run before the write transaction: they are the
	// expensive part, and the single writer should not wait for them.
	payments := s.validatePayments(&v, in.Payments, org.ReferralsEnabled)

	var b Batch
	err = s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if b, err = ownBatch(ctx, tx, organisationID, batchID, true); err != nil {
			return err
		}
		if err := checkAllowed(b, ActionAddPayments); err != nil {
			return err
		}
		clear := in.ClearExisting != nil && *in.ClearExisting
		if err := s.checkStored(ctx, tx, &v, b, payments, clear); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		if clear {
			if err := tx.DeleteDraftPayments(ctx, b.ID); err != nil {
				return err
			}
			b.Summary = Summary{}
		}
		if err := s.prepareNew(ctx, tx, b, payments); err != nil {
			return err
		}
		if err := tx.InsertPayments(ctx, payments); err != nil {
			return err
		}
		for _, p := range payments {
			b.Summary.Change(Payment{Status: PaymentDeleted}, p)
		}
		return tx.UpdateBatch(ctx, b)
	})
	if err != nil {
		return Batch{}, nil, err
	}
	return b, payments, nil
}

// checkStored adds the failures that depend on what is stored: external ids
// already used by the organisation's other non-deleted payments, and the
// batch's size limit.
func (s *Service) checkStored(ctx context.Context, tx Tx, v *Validation, b Batch, payments []Payment, clear bool) error {
	var ids []string
	index := make(map[string]int)
	for i, p := range payments {
		if p.ExternalID != "" {
			if _, seen := index[p.ExternalID]; !seen {
				index[p.ExternalID] = i
				ids = append(ids, p.ExternalID)
			}
		}
	}
	if len(ids) > 0 {
		// Adds to two batches lock two batch rows; the organisation's row
		// orders them, or both could find an external id free and take it.
		if _, err := tx.LockOrganisation(ctx, b.OrganisationID); err != nil {
			return err
		}
		except := ""
		if clear {
			except = b.ID // the payments being cleared give their external ids up
		}
		used, err := tx.ExternalIDsInUse(ctx, b.OrganisationID, ids, except)
		if err != nil {
			return err
		}
		for _, id := range used {
			v.Add(index[id], "ExternalId", id, "externalId is already used by another payment")
		}
	}
	existing := b.Summary.PaymentsCount
	if clear {
		existing = 0
	}
	if total := existing + int64(len(payments)); total > s.Limits.MaxPaymentsPerBatch {
		v.Add(-1, "Payments", strconv.FormatInt(total, 10), "a batch holds at most "+strconv.FormatInt(s.Limits.MaxPaymentsPerBatch, 10)+" payments")
	}
	return nil
}

// prepareNew gives the new payments their ids, batch, time and membership.
func (s *Service) prepareNew(ctx context.Context, tx Tx, b Batch, payments []Payment) error {
	members, err := tx.Members(ctx, msisdnsOf(payments, false))
	if err != nil {
		return err
	}
	now := s.now()
	for i := range payments {
		p := &payments[i]
		p.ID, p.BatchID, p.OrganisationID, p.CreatedAt = NewID(), b.ID, b.OrganisationID, now
		_, p.IsMember = members[p.Msisdn]
	}
	return nil
}

// msisdnsOf lists the distinct payee msisdns, with referral msisdns if asked.
func msisdnsOf(payments []Payment, referrals bool) []string {
	seen := make(map[string]bool, len(payments))
	var out []string
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, p := range payments {
		add(p.Msisdn)
		if referrals && p.HasReferral() {
			add(p.ReferralMsisdn)
		}
	}
	return out
}

// BatchPayments lists a batch's payments in the order they were added.
func (s *Service) BatchPayments(ctx context.Context, organisationID, batchID string, q ListQuery) ([]Payment, error) {
	var v Validation
	var f PaymentFilter
	f.Skip, f.Take = paging(&v, q)
	if q.StatusCode != "" {
		if !validStatus(q.StatusCode, PaymentStatuses()) {
			v.Add(-1, "StatusCode", q.StatusCode, "statusCode must be one of DRAFT, PENDING, CANCELLED, SETTLED, DELETED")
		}
		f.Status = PaymentStatus(q.StatusCode)
	}
	var list []Payment
	err := s.Store.Read(ctx, func(tx Tx) error {
		if _, err := ownBatch(ctx, tx, organisationID, batchID, false); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		var err error
		list, err = tx.Payments(ctx, batchID, f)
		return err
	})
	return list, err
}

// Payment returns one of the organisation's payments.
func (s *Service) Payment(ctx context.Context, organisationID, id string) (Payment, error) {
	var p Payment
	err := s.Store.Read(ctx, func(tx Tx) error {
		var err error
		p, err = ownPayment(ctx, tx, organisationID, id)
		return err
	})
	return p, err
}

func ownPayment(ctx context.Context, tx Tx, organisationID, id string) (Payment, error) {
	if !ValidID(id) {
		return Payment{}, notFound("payment")
	}
	p, err := tx.Payment(ctx, id)
	if err != nil {
		return Payment{}, orNotFound(err, "payment")
	}
	if p.OrganisationID != organisationID {
		return Payment{}, notFound("payment")
	}
	return p, nil
}

// DeletePayment marks a DRAFT payment of a DRAFT batch DELETED.
func (s *Service) DeletePayment(ctx context.Context, organisationID, id string) (Payment, error) {
	var p Payment
	err := s.Store.Write(ctx, func(tx Tx) error {
		found, err := ownPayment(ctx, tx, organisationID, id)
		if err != nil {
			return err
		}
		// Lock the batch first: the fixed order is batch, account, payments.
		b, err := ownBatch(ctx, tx, organisationID, found.BatchID, true)
		if err != nil {
			return err
		}
		if p, err = tx.Payment(ctx, id); err != nil { // re-read under the batch lock
			return err
		}
		if err := checkAllowed(b, ActionDeletePayment); err != nil {
			return err
		}
		if p.Status != PaymentDraft {
			return Errorf(CodeInvalidState, "cannot delete a payment that is %s", p.Status)
		}
		old := p
		p.Status = PaymentDeleted
		if p.HasReferral() {
			p.ReferralStatus = PaymentDeleted
		}
		b.Summary.Change(old, p)
		if err := tx.UpdatePaymentStates(ctx, []Payment{p}); err != nil {
			return err
		}
		return tx.UpdateBatch(ctx, b)
	})
	return p, err
}

// MemberExists reports whether msisdn is a member of the service.
func (s *Service) MemberExists(ctx context.Context, msisdn string) (bool, error) {
	if !ValidMsisdn(msisdn) {
		return false, Invalid("Msisdn", msisdn, msisdnMessage)
	}
	var found bool
	err := s.Store.Read(ctx, func(tx Tx) error {
		members, err := tx.Members(ctx, []string{msisdn})
		found = len(members) > 0
		return err
	})
	return found, err
}
