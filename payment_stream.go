package disburse

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/disburse/disburse/internal/parallel"
)

// DefaultAddChunkSize is how many payments of a large add are checked at a
// time while the write transaction inserts the chunk before: on SQLite
// one multi-row INSERT (16 columns, at most 32,766 parameters), on
// PostgreSQL one COPY (docs/benchmarks.md, "The add and the stores").
const DefaultAddChunkSize = 2000

// addChunkSize is AddChunkSize, or the default for a Service built
// without it.
func (s *Service) addChunkSize() int {
	if s.AddChunkSize > 0 {
		return s.AddChunkSize
	}
	return DefaultAddChunkSize
}

// errCheckAll stops an add in chunks that found a failure: the add runs
// again whole, the one way that lists every failure (AddPayments).
var errCheckAll = errors.New("disburse: a chunk failed its checks")

// addLarge adds a large request in chunks (addInChunks) when nothing of
// it has failed yet; done is false when the add is to run whole instead.
func (s *Service) addLarge(ctx context.Context, v *Validation, organisationID, batchID string, in []PaymentInput, clear bool) (b Batch, added []Payment, done bool, err error) {
	if v.Err() != nil || len(in) <= s.addChunkSize() {
		return Batch{}, nil, false, nil
	}
	b, added, err = s.addInChunks(ctx, organisationID, batchID, in, clear)
	return b, added, !addAgain(err), err
}

// addAgain reports whether an add in chunks ended in what the whole add
// must answer instead: any failure of the request or the batch (its
// checks, a taken external id, the batch's state). A database that is
// unreachable or busy, or a client gone, is answered as it is.
func addAgain(err error) bool {
	var e *Error
	switch {
	case err == nil:
		return false
	case errors.Is(err, errCheckAll), errors.Is(err, ErrDuplicate):
		return true
	case errors.As(err, &e):
		return e.Code != CodeUnavailable
	}
	return false
}

// checkedChunks are a request's payments, checked a chunk at a time by one
// goroutine (checkChunks) while the write transaction inserts the chunks
// before (addInChunks): the checks' CPU and the database's insert overlap
// instead of following each other.
type checkedChunks struct {
	in       []PaymentInput
	size     int
	payments []Payment         // checked, in place; the add's answer
	checked  []bool            // the chunk passed every check
	ready    []chan struct{}   // closed once the chunk is checked or the checks stopped
	err      error             // what stopped the checks, set before the last ready closes
	members  map[string]Member // among the payees
}

func newCheckedChunks(in []PaymentInput, size int) *checkedChunks {
	n := (len(in) + size - 1) / size
	c := &checkedChunks{in: in, size: size, payments: make([]Payment, len(in)),
		checked: make([]bool, n), ready: make([]chan struct{}, n)}
	for k := range c.ready {
		c.ready[k] = make(chan struct{})
	}
	return c
}

// bounds are chunk k's first index and the one past its last.
func (c *checkedChunks) bounds(k int) (from, to int) {
	return k * c.size, min((k+1)*c.size, len(c.in))
}

// wait returns chunk k's payments once checked, or why they are not.
func (c *checkedChunks) wait(ctx context.Context, k int) ([]Payment, error) {
	select {
	case <-c.ready[k]:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	switch {
	case c.checked[k]:
	case c.err != nil:
		return nil, c.err
	default:
		return nil, errCheckAll
	}
	from, to := c.bounds(k)
	return c.payments[from:to], nil
}

// checkChunks checks every chunk in order, each payment as validatePayments
// does, and stops at the first chunk that fails. It reads nothing: a
// goroutine that took a connection of its own while its add holds one
// could wait on a pool its adds have emptied. A duplicate external id
// across two chunks is not seen here: the store refuses it at insert
// (ErrDuplicate).
func (s *Service) checkChunks(ctx context.Context, c *checkedChunks, referrals bool) {
	done := 0
	var failed error
	panicked := parallel.Protect(func() {
		for ; done < len(c.ready) && ctx.Err() == nil; done++ {
			from, to := c.bounds(done)
			var v Validation
			if err := s.validateInto(&v, c.in[from:to], c.payments[from:to], referrals); err != nil || v.Err() != nil {
				failed = err
				return // closed below, once c.err is set
			}
			c.checked[done] = true
			close(c.ready[done])
		}
	})
	c.err = errors.Join(failed, panicked)
	if c.err == nil {
		c.err = ctx.Err() // nil when a chunk failed its checks
	}
	for ; done < len(c.ready); done++ {
		close(c.ready[done])
	}
}

// addInChunks adds a request's payments, all or nothing, inserting each
// chunk as soon as it is checked, while the next is checked. It answers
// as addPayments would, or stops with a failure (addAgain) for the whole
// add to report. The payees' membership is read first, as
// validateAndFindMembers reads it, while the first chunks are checked.
func (s *Service) addInChunks(ctx context.Context, organisationID, batchID string, in []PaymentInput, clear bool) (Batch, []Payment, error) {
	c := newCheckedChunks(in, s.addChunkSize())
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // the checks end before the add returns
	defer cancel()
	started := false
	err := s.Store.Read(ctx, func(tx Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return err
		}
		if !started {
			started = true
			wg.Go(func() { s.checkChunks(ctx, c, org.ReferralsEnabled) })
		}
		c.members, err = membersIn(ctx, tx, org, payees(in))
		return err
	})
	if err != nil {
		return Batch{}, nil, err
	}
	var b Batch
	err = s.Store.Write(ctx, func(tx Tx) error {
		var err error
		b, err = s.insertChunks(ctx, tx, organisationID, batchID, c, clear)
		return err
	})
	if err != nil {
		return Batch{}, nil, err
	}
	return b, c.payments, nil
}

// insertChunks is addInChunks' transaction: the batch locked, the checks
// against what is stored (validateAgainstStored's, in its order), then
// each chunk inserted as it is checked.
func (s *Service) insertChunks(ctx context.Context, tx Tx, organisationID, batchID string, c *checkedChunks, clear bool) (Batch, error) {
	b, err := draftToAdd(ctx, tx, organisationID, batchID)
	if err != nil {
		return Batch{}, err
	}
	existing := b.Summary.PaymentsCount
	if clear {
		existing = 0
	}
	if existing+int64(len(c.in)) > s.Limits.MaxPaymentsPerBatch {
		return Batch{}, errCheckAll
	}
	if anyExternalID(c.in) { // the organisation's row orders adds, as in validateAgainstStored
		if _, err := tx.LockOrganisation(ctx, organisationID); err != nil {
			return Batch{}, err
		}
	}
	if clear {
		if err := tx.DeleteDraftPayments(ctx, b.ID); err != nil {
			return Batch{}, err
		}
		b.Summary = Summary{}
	}
	if err := insertChecked(ctx, tx, &b, c, s.Now()); err != nil {
		return Batch{}, err
	}
	if err := tx.UpdateBatch(ctx, b); err != nil {
		return Batch{}, err
	}
	return b, s.auditAdded(ctx, tx, b, len(c.in), paymentsTotal(c.payments), clear)
}

// insertChecked inserts each chunk of c once checked, in order, and
// counts it in b's summary.
func insertChecked(ctx context.Context, tx Tx, b *Batch, c *checkedChunks, now time.Time) error {
	for k := range c.ready {
		part, err := c.wait(ctx, k)
		if err != nil {
			return err
		}
		prepare(*b, part, c.members, now)
		if err := tx.InsertPayments(ctx, part); err != nil {
			return err
		}
		for _, p := range part {
			b.Summary.Change(Payment{Status: PaymentDeleted}, p)
		}
	}
	return nil
}

// anyExternalID reports whether a payment of in has an external id.
func anyExternalID(in []PaymentInput) bool {
	for _, p := range in {
		if p.ExternalID != "" {
			return true
		}
	}
	return false
}
