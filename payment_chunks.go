package disburse

import (
	"context"
	"errors"
)

// PaymentChunks hands over the payments of a file a chunk at a time: it
// calls yield with each chunk in order and stops with yield's error.
// AddPaymentChunks may run it more than once (a transaction run again),
// so each run starts from the first chunk.
type PaymentChunks func(yield func([]PaymentInput) error) error

// AddPaymentChunks adds every payment that chunks hands over to a DRAFT
// batch, all or nothing, in one write transaction (docs/portal.md,
// "Uploading payments"): a file that would take the batch past its limit,
// or holds one payment that fails, adds nothing. Each chunk is checked as
// AddPayments checks a request, against the batch as the chunks before it
// left it (its limit; the external ids they took). The first chunk that
// fails stops it: its failures are returned, their indexes that chunk's
// own (the last one handed to yield). It returns the batch and how many
// payments it added.
//
// The checks run inside the transaction, which a request's add keeps out
// of it: a caller checks the file first (CheckPayments), so that a file
// with bad rows never takes the writer.
func (s *Service) AddPaymentChunks(ctx context.Context, organisationID, batchID string, chunks PaymentChunks) (Batch, int, error) {
	if !ValidID(batchID) {
		return Batch{}, 0, NotFound("batch")
	}
	// As AddPayments: the external ids are looked up only once the store
	// refused a taken one, or a chunk fails anyway.
	for lookup := false; ; lookup = true {
		b, n, err := s.addChunks(ctx, organisationID, batchID, chunks, lookup)
		if errors.Is(err, ErrDuplicate) && !lookup {
			continue
		}
		return b, n, err
	}
}

// addChunks is one run of AddPaymentChunks' transaction.
func (s *Service) addChunks(ctx context.Context, organisationID, batchID string, chunks PaymentChunks, lookup bool) (Batch, int, error) {
	var b Batch
	var added int
	err := s.Store.Write(ctx, func(tx Tx) error {
		added = 0
		var total Money
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return err
		}
		if b, err = draftToAdd(ctx, tx, organisationID, batchID); err != nil {
			return err
		}
		err = chunks(func(in []PaymentInput) error {
			var v Validation
			payments, err := s.validatePayments(&v, in, org.ReferralsEnabled)
			if err != nil {
				return err
			}
			members, err := membersIn(ctx, tx, org, payees(in))
			if err != nil {
				return err
			}
			add := addition{organisationID: organisationID, batchID: batchID, payments: payments, members: members,
				lookup: lookup || v.Err() != nil}
			if err := s.insertAddition(ctx, tx, &v, &b, add); err != nil {
				return err
			}
			added += len(payments)
			total += paymentsTotal(payments)
			return nil
		})
		if err != nil {
			return err
		}
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.auditAdded(ctx, tx, b, added, total, false)
	})
	if err != nil {
		return Batch{}, 0, err
	}
	return b, added, nil
}
