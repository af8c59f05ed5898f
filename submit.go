package disburse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/disburse/disburse/internal/parallel"
)

// Submit pays a DRAFT batch in one transaction (docs/api.md section 6): members
// are paid from the float at once, non-members' money moves to the holding
// account until they register or the reversal period ends. The payments
// move a page at a time (PageSize), each page's writes in bulk, so that a
// batch of a million never sits in memory whole. It returns the batch;
// PaymentPages then reads the payments with their new statuses. A batch
// its organisation wants approved is not paid: the batch returned is
// DRAFT, its ApprovalID the approval requested (SubmitSpooled).
func (s *Service) Submit(ctx context.Context, organisationID, batchID string) (Batch, error) {
	sub, err := s.SubmitSpooled(ctx, organisationID, batchID, nil)
	return sub.Batch, err
}

// AnswerSpool keeps a submit's answer: it is shown the payments a page at
// a time, in their new state, as the submit writes them. The API answers
// with them all, and reading a large batch back from the store after the
// commit was a visible part of the submit (docs/benchmarks.md).
type AnswerSpool interface {
	// Restart says the submit's transaction runs again from its start:
	// the pages shown so far are void.
	Restart()
	// Page shows the next page, on a goroutine of its own while the
	// submit writes the page, which it does not change meanwhile. The
	// spool may not keep it: its memory serves the next page.
	Page(payments []Payment)
}

// Submission is what a submit did: it paid the batch, or, for a batch at
// or above its organisation's approval threshold, it paid nothing and
// requested an approval (docs/api.md section 4.3), which Approval then is.
type Submission struct {
	Batch    Batch
	Approval *Approval // nil when the batch was paid
}

// SubmitSpooled submits as Submit does, showing spool (when not nil) the
// payments as it goes. Until it returns without an error, nothing shown
// has been committed; a submit that requested an approval shows nothing.
func (s *Service) SubmitSpooled(ctx context.Context, organisationID, batchID string, spool AnswerSpool) (Submission, error) {
	var sub Submission
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		sub, moved = Submission{}, nil
		if spool != nil {
			spool.Restart() // a retry after a deadlock runs this again
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
		moved, err = s.submitLocked(ctx, tx, org, &b, spool)
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
func (s *Service) submitLocked(ctx context.Context, tx Tx, org Organisation, b *Batch, spool AnswerSpool) (moves, error) {
	if err := checkFloat(ctx, tx, *b); err != nil {
		return nil, err
	}
	now, moved, err := s.payPages(ctx, tx, org, b, spool)
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

// payPages pays the batch's DRAFT payments a page at a time, showing each
// page to spool once written, then applies the balances, and returns the
// submit's time and what it moved.
func (s *Service) payPages(ctx context.Context, tx Tx, org Organisation, b *Batch, spool AnswerSpool) (time.Time, moves, error) {
	// One buffer for every page, emptied before each: its slices'
	// memory serves them all. The balances change once, after the
	// last page, and the holding account's row is locked from then on.
	m := writeBuffer{now: s.Now(), balances: make(BalanceChanges)}
	err := tx.PaymentPages(ctx, b.ID, PaymentDraft, s.pageSize(), func(page []Payment) error {
		m.empty()
		if err := s.pay(ctx, tx, &m, org, b, page); err != nil {
			return err
		}
		// The page is final once paid: the spool writes it down while
		// the database writes the page's states and notifications, which
		// only read it (docs/benchmarks.md, "The submit"), and is done
		// with it before the next page takes its memory. A write that
		// fails fails the submit, and what the spool holds goes with it.
		shown := showPage(spool, page)
		err := m.flushStates(ctx, tx)
		return errors.Join(err, <-shown)
	})
	if err != nil {
		return time.Time{}, nil, err
	}
	return m.now, m.moved, m.applyBalances(ctx, tx)
}

// showPage shows page to spool on a goroutine of its own, and reports
// on the channel once done (a panic as an error); a nil spool shows
// nothing.
func showPage(spool AnswerSpool, page []Payment) <-chan error {
	shown := make(chan error, 1)
	if spool == nil {
		shown <- nil
		return shown
	}
	go func() { shown <- parallel.Protect(func() { spool.Page(page) }) }()
	return shown
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

// pay moves every leg of the DRAFT payments: to a member's wallet, or to the
// holding account with a reversal date. Membership is read now, at submit.
// The legs are worked out on a goroutine while the page's transfers are
// inserted, each once made (docs/benchmarks.md, "The submit"); the
// payments' states and the notifications are left to flushStates, the
// balances to applyBalances.
func (s *Service) pay(ctx context.Context, tx Tx, m *writeBuffer, org Organisation, b *Batch, payments []Payment) error {
	msisdns := msisdnsOf(payments, true)
	members, err := membersIn(ctx, tx, org, msisdns)
	if err != nil {
		return err
	}
	var paid []string
	for _, msisdn := range msisdns {
		if _, ok := members[msisdn]; ok {
			paid = append(paid, msisdn)
		}
	}
	wallets, err := walletsIn(ctx, tx, org, paid, m.now)
	if err != nil {
		return err
	}
	// reserve sizes m.transfers for every leg, so that appending them
	// never moves the array the insert reads.
	transfers := m.transfers[:m.reserve(payments, members)]
	made := make(chan int, len(payments)/legRun+2)
	done := make(chan error, 1)
	go func() {
		defer close(made)
		done <- parallel.Protect(func() { s.moveLegs(m, org, b, payments, members, wallets, made) })
	}()
	err = tx.InsertTransferRows(ctx, transfers, func() (int, error) {
		if n, ok := <-made; ok {
			return n, nil
		}
		return 0, errLegsStopped
	})
	if err := errors.Join(<-done, err); err != nil {
		return err
	}
	if len(m.transfers) != len(transfers) {
		return fmt.Errorf("submit: %d transfers made for %d legs", len(m.transfers), len(transfers))
	}
	m.balances.Add(m.transfers)
	// Every DRAFT payment changes at submit, so the page itself is what
	// flushStates writes, rather than a copy of it (m.record's).
	m.payments = payments
	return nil
}

// legRun is how many payments moveLegs works out between the reports of
// how many transfers it has made.
const legRun = 500

// errLegsStopped is an insert of a page's transfers whose legs stopped
// before the last (a panic, returned beside it).
var errLegsStopped = errors.New("submit: the page's legs stopped before the last")

// moveLegs works out each payment's legs into m: its transfers, its
// notifications, its states and b's summary; after every legRun
// payments, and at the end, it sends how many transfers it has made.
func (s *Service) moveLegs(m *writeBuffer, org Organisation, b *Batch, payments []Payment, members map[string]Member, wallets map[string]string, made chan<- int) {
	due := m.now.Add(org.ReversalPeriod)
	sms := smsMessages(org, due)
	for i := range payments {
		p := &payments[i]
		old := *p
		_, p.IsMember = members[p.Msisdn]
		p.SubmittedAt = m.now
		for _, l := range legsOf(p) {
			member, isMember := members[l.msisdn]
			if isMember {
				m.transfer(org, b.AccountID, wallets[l.msisdn], l.amount, TransferPay, *p, l.which)
				*l.status, *l.settledAt = PaymentSettled, m.now
				if member.AppInstalled {
					m.notify(org, ChannelPush, l.msisdn, pushMessage(org, l.amount))
				}
				continue
			}
			m.transfer(org, b.AccountID, org.HoldingAccountID, l.amount, TransferHold, *p, l.which)
			*l.status, p.ReversalDueAt = PaymentPending, due
			m.notify(org, ChannelSMS, l.msisdn, sms(l.amount))
		}
		b.Summary.Change(old, *p)
		if (i+1)%legRun == 0 || i == len(payments)-1 {
			made <- len(m.transfers) // never blocks: there is room for every report
		}
	}
}
