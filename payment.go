package disburse

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/disburse/disburse/internal/msisdn"
	"github.com/disburse/disburse/internal/parallel"
	"github.com/disburse/disburse/internal/text"
)

// AddPayments validates and adds payments to a DRAFT batch, all or nothing
// (docs/api.md sections S4.2 and 4.1). It returns the batch and the payments added.
func (s *Service) AddPayments(ctx context.Context, organisationID, batchID string, in AddPaymentsInput) (Batch, []Payment, error) {
	if !ValidID(batchID) {
		return Batch{}, nil, NotFound("batch")
	}
	var v Validation
	if !in.WrongTypes.report(&v, -1, FieldClearExisting) && in.ClearExisting == nil {
		v.Add(-1, "ClearExisting", "", "clearExisting is required (true or false)")
	}
	switch n := len(in.Payments); {
	case in.WrongTypes.report(&v, -1, fieldPayments):
	case n == 0:
		v.Add(-1, "Payments", "", "payments must hold at least one payment")
	case n > s.Limits.MaxPaymentsPerRequest:
		v.Add(-1, "Payments", strconv.Itoa(n), "at most "+strconv.Itoa(s.Limits.MaxPaymentsPerRequest)+" payments per request")
	}
	if len(in.Payments) > s.Limits.MaxPaymentsPerRequest {
		return Batch{}, nil, v.Err() // too many to be worth validating one by one
	}

	clear := in.ClearExisting != nil && *in.ClearExisting
	// Where writes run side by side, the payments are checked while they
	// are inserted; a failure on the way falls back to the way below, with
	// nothing written (docs/decisions.md, "Payments and referrals").
	taken := false // an external id is taken: look them up at once
	if v.Err() == nil && !s.Store.HasOneWriter() {
		b, payments, err := s.addWhileChecking(ctx, organisationID, batchID, in.Payments, clear)
		if taken = errors.Is(err, ErrDuplicate); !taken && !errors.Is(err, errRecheck) {
			return b, payments, err
		}
	}

	payments, members, err := s.validateAndFindMembers(ctx, &v, organisationID, in.Payments)
	if err != nil {
		return Batch{}, nil, err
	}
	add := addition{organisationID: organisationID, batchID: batchID, payments: payments, members: members, clear: clear}
	// Nearly always every external id is free: the payments go in without
	// asking which are taken, and the store refuses a taken one. Only then,
	// or when the request fails anyway (its failures come back together),
	// are the external ids looked up.
	add.lookup = v.Err() != nil || taken
	b, err := s.addPayments(ctx, &v, add)
	if errors.Is(err, ErrDuplicate) && !add.lookup {
		add.lookup = true
		b, err = s.addPayments(ctx, &v, add)
	}
	if err != nil {
		return Batch{}, nil, err
	}
	return b, payments, nil
}

// validateAndFindMembers reads the organisation and checks every payment on its
// own, before the write transaction: the checks are the expensive part,
// and a single writer should not wait for them. The same read looks up
// which payees are members meanwhile, since neither needs the other.
func (s *Service) validateAndFindMembers(ctx context.Context, v *Validation, organisationID string, in []PaymentInput) ([]Payment, map[string]Member, error) {
	var payments []Payment
	var members map[string]Member
	err := s.Store.Read(ctx, func(tx Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return err
		}
		checked := make(chan error, 1)
		go func() {
			var err error
			checked <- errors.Join(parallel.Protect(func() { payments, err = s.validatePayments(v, in, org.ReferralsEnabled) }), err)
		}()
		members, err = membersIn(ctx, tx, org, payees(in))
		return errors.Join(<-checked, err)
	})
	return payments, members, err
}

// payees lists the distinct msisdns of the payees that may be valid: the
// lookup runs beside the checks, so it must not be given what a check
// would refuse (a NUL, which PostgreSQL refuses in text, or a number longer
// than any valid one).
func payees(in []PaymentInput) []string {
	d := newDistinct(len(in))
	for _, p := range in {
		if msisdn.Plausible(p.Msisdn) {
			d.add(p.Msisdn)
		}
	}
	return d.list
}

// addition is one add's checked payments and where they go.
type addition struct {
	organisationID, batchID string
	payments                []Payment
	members                 map[string]Member // among the payees, when checked
	clear                   bool              // the batch's payments are replaced
	lookup                  bool              // look up the external ids taken, to report them
}

// addPayments writes a checked addition, all or nothing.
func (s *Service) addPayments(ctx context.Context, v *Validation, add addition) (Batch, error) {
	var b Batch
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if b, err = draftToAdd(ctx, tx, add.organisationID, add.batchID); err != nil {
			return err
		}
		if err := s.insertAddition(ctx, tx, v, &b, add); err != nil {
			return err
		}
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.auditAdded(ctx, tx, b, len(add.payments), paymentsTotal(add.payments), add.clear)
	})
	return b, err
}

// auditAdded writes an add's one audit entry: one per request or file,
// never one per payment, for the add is a hot path.
func (s *Service) auditAdded(ctx context.Context, tx Tx, b Batch, count int, total Money, clear bool) error {
	return s.audit(ctx, tx, ActorOf(ctx), "payments.added", b.OrganisationID, b.ID, map[string]any{
		"count": count, "total": total.String(), "clearExisting": clear})
}

// paymentsTotal is the sum of ps' amounts.
func paymentsTotal(ps []Payment) Money {
	var total Money
	for _, p := range ps {
		total += p.Amount
	}
	return total
}

// draftToAdd locks the organisation's batch id, which must allow adding payments.
func draftToAdd(ctx context.Context, tx Tx, organisationID, batchID string) (Batch, error) {
	b, err := ownBatch(ctx, tx, organisationID, batchID, true)
	if err != nil {
		return Batch{}, err
	}
	return b, checkAllowed(b, ActionAddPayments)
}

// insertAddition checks add against the batch b as tx holds it, and, when
// nothing fails, inserts its payments and counts them in b's summary; the
// caller writes b.
func (s *Service) insertAddition(ctx context.Context, tx Tx, v *Validation, b *Batch, add addition) error {
	if err := s.validateAgainstStored(ctx, tx, v, *b, add); err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	if add.clear {
		if err := tx.DeleteDraftPayments(ctx, b.ID); err != nil {
			return err
		}
		b.Summary = Summary{}
	}
	s.prepareNew(*b, add)
	if err := tx.InsertPayments(ctx, add.payments); err != nil {
		return err
	}
	for _, p := range add.payments {
		b.Summary.Change(Payment{Status: PaymentDeleted}, p)
	}
	return nil
}

// validateAgainstStored adds the failures that depend on what is stored: the
// batch's size limit, and when add.lookup asks, the external ids already
// used by the organisation's other non-deleted payments.
func (s *Service) validateAgainstStored(ctx context.Context, tx Tx, v *Validation, b Batch, add addition) error {
	externalID := func(i int) string { return add.payments[i].ExternalID }
	if err := checkExternalIDs(ctx, tx, v, b, len(add.payments), externalID, add.clear, add.lookup); err != nil {
		return err
	}
	s.checkBatchLimit(v, b, add.clear, len(add.payments))
	return nil
}

// checkExternalIDs takes the organisation's lock when any of n payments
// added to b has an external id (externalID(i) is payment i's), and when
// lookup asks, adds a failure for each one that another non-deleted
// payment of the organisation holds, those of b's payments aside when
// they are cleared.
func checkExternalIDs(ctx context.Context, tx Tx, v *Validation, b Batch, n int, externalID func(i int) string, clear, lookup bool) error {
	var ids []string
	var index map[string]int
	for i := range n {
		// An id that is not text has its failure already, and the store
		// must not be asked about it (PostgreSQL refuses a NUL).
		id := externalID(i)
		if id == "" || !text.Valid(id) {
			continue
		}
		if !lookup { // one is enough to lock
			ids = append(ids, id)
			break
		}
		if index == nil {
			index = make(map[string]int)
		}
		if _, seen := index[id]; !seen {
			index[id] = i
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	// Adds to two batches lock two batch rows; the organisation's row
	// orders them. Without it, two adds taking the same external ids
	// in opposite orders would each wait for the other until
	// PostgreSQL found the deadlock, a second later.
	if _, err := tx.LockOrganisation(ctx, b.OrganisationID); err != nil {
		return err
	}
	if !lookup {
		return nil
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
	return nil
}

// checkBatchLimit adds a failure when n more payments would take b past
// the most a batch holds.
func (s *Service) checkBatchLimit(v *Validation, b Batch, clear bool, n int) {
	existing := b.Summary.PaymentsCount
	if clear {
		existing = 0
	}
	if total := existing + int64(n); total > s.Limits.MaxPaymentsPerBatch {
		v.Add(-1, "Payments", strconv.FormatInt(total, 10), "a batch holds at most "+strconv.FormatInt(s.Limits.MaxPaymentsPerBatch, 10)+" payments")
	}
}

// prepareNew gives the new payments their ids, batch, time and membership.
func (s *Service) prepareNew(b Batch, add addition) {
	prepareNewPayments(add.payments, b, add.members, s.Now())
}

// prepareNewPayments gives ps their ids, b's batch and organisation, the
// time now and whether each payee is among members.
func prepareNewPayments(ps []Payment, b Batch, members map[string]Member, now time.Time) {
	for i := range ps {
		p := &ps[i]
		p.ID, p.BatchID, p.OrganisationID, p.CreatedAt = NewID(), b.ID, b.OrganisationID, now
		_, p.IsMember = members[p.Msisdn]
	}
}

// msisdnsOf lists the distinct payee msisdns, with referral msisdns if asked.
func msisdnsOf(payments []Payment, referrals bool) []string {
	d := newDistinct(len(payments))
	for _, p := range payments {
		d.add(p.Msisdn)
		if referrals && p.HasReferral() {
			d.add(p.ReferralMsisdn)
		}
	}
	return d.list
}

// distinct collects strings once each, in the order first added, leaving
// empty ones out.
type distinct struct {
	seen map[string]bool
	list []string
}

func newDistinct(capacity int) *distinct {
	return &distinct{seen: make(map[string]bool, capacity)}
}

func (d *distinct) add(s string) {
	if s != "" && !d.seen[s] {
		d.seen[s] = true
		d.list = append(d.list, s)
	}
}

// Payment returns one of the organisation's payments.
func (s *Service) Payment(ctx context.Context, organisationID, id string) (Payment, error) {
	return read(ctx, s.Store, func(tx Tx) (Payment, error) { return ownPayment(ctx, tx, organisationID, id) })
}

func ownPayment(ctx context.Context, tx Tx, organisationID, id string) (Payment, error) {
	if !ValidID(id) {
		return Payment{}, NotFound("payment")
	}
	p, err := tx.Payment(ctx, id)
	if err != nil {
		return Payment{}, OrNotFound(err, "payment")
	}
	if p.OrganisationID != organisationID {
		return Payment{}, NotFound("payment")
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
		if err := tx.DeleteDraftPayment(ctx, p.ID); err != nil {
			return err
		}
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.audit(ctx, tx, ActorOf(ctx), "payment.deleted", organisationID, p.ID, map[string]any{
			"batchId": b.ID, "amount": p.Amount.String()})
	})
	return p, err
}

// MemberExists reports whether msisdn is a member to the organisation: of
// the service, or, to a sandbox, of the sandbox (docs/sandbox.md).
func (s *Service) MemberExists(ctx context.Context, organisationID, msisdn string) (bool, error) {
	if !validMsisdn(msisdn) {
		return false, Invalid("Msisdn", msisdn, MsisdnMessage)
	}
	members, err := read(ctx, s.Store, func(tx Tx) (map[string]Member, error) {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return nil, OrNotFound(err, "organisation")
		}
		return membersIn(ctx, tx, org, []string{msisdn})
	})
	return len(members) > 0, err
}
