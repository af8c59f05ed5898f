package disburse

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// BatchInput is the body of POST /batches and PUT /batches/{id}.
type BatchInput struct {
	Name       string     `json:"name"`
	ExternalID string     `json:"externalId"`
	AccountID  string     `json:"accountId"` // POST only; empty: the organisation's default payout account
	WrongTypes WrongTypes `json:"-"`
}

// ListQuery is the raw query of a list call (docs/api.md section 4): statusCode,
// externalId, skip and take, as the client sent them.
type ListQuery struct {
	StatusCode, ExternalID, Skip, Take string
	// Keyset pages by key (docs/versioning.md): After, when not empty, is
	// the id of the last item of the page before, and the list reads one
	// item more than Take, which tells its caller whether more follow.
	// Skip is then not taken.
	Keyset bool
	After  string
}

// maxTake is both the default and the upper bound of take (docs/api.md section S4.1 rule 2).
const maxTake = 1000

func validateBatchInput(in BatchInput) error {
	var v Validation
	w := in.WrongTypes
	if n := len([]rune(strings.TrimSpace(in.Name))); !w.report(&v, -1, fieldName) && v.Text(-1, "Name", in.Name) && (n == 0 || len([]rune(in.Name)) > 200) {
		v.Add(-1, "Name", in.Name, "name is required, 1 to 200 characters")
	}
	if !w.report(&v, -1, fieldExternalID) && v.Text(-1, "ExternalId", in.ExternalID) && len([]rune(in.ExternalID)) > 100 {
		v.Add(-1, "ExternalId", in.ExternalID, "externalId is at most 100 characters")
	}
	w.report(&v, -1, fieldAccountID)
	return v.Err()
}

// CreateBatch creates a DRAFT batch paying from the given or default payout account.
func (s *Service) CreateBatch(ctx context.Context, organisationID string, in BatchInput) (Batch, error) {
	if err := validateBatchInput(in); err != nil {
		return Batch{}, err
	}
	if in.AccountID != "" && !ValidID(in.AccountID) {
		return Batch{}, Invalid("AccountId", in.AccountID, "accountId is not one of the organisation's payout accounts")
	}
	b := Batch{ID: NewID(), OrganisationID: organisationID, Name: in.Name, ExternalID: in.ExternalID, Status: BatchDraft, CreatedAt: s.Now()}
	err := s.Store.Write(ctx, func(tx Tx) error {
		accountID, err := tx.PayoutAccountID(ctx, organisationID, in.AccountID)
		if errors.Is(err, ErrNotFound) {
			return Invalid("AccountId", in.AccountID, "accountId is not one of the organisation's payout accounts")
		}
		if err != nil {
			return err
		}
		b.AccountID = accountID
		if err := tx.InsertBatch(ctx, b); err != nil {
			return err
		}
		return s.audit(ctx, tx, ActorOf(ctx), "batch.created", organisationID, b.ID, auditBatch(b))
	})
	return b, err
}

// Batch returns one of the organisation's batches. Another organisation's
// batch is not found, never forbidden: its existence is not revealed.
func (s *Service) Batch(ctx context.Context, organisationID, id string) (Batch, error) {
	return read(ctx, s.Store, func(tx Tx) (Batch, error) { return ownBatch(ctx, tx, organisationID, id, false) })
}

// OwnBatch reads a batch in tx and hides it unless organisationID owns
// it: another organisation's batch is not found, as a missing one is. The
// features that read through the domain's Tx check a batch with it.
func OwnBatch(ctx context.Context, tx Tx, organisationID, id string) (Batch, error) {
	return ownBatch(ctx, tx, organisationID, id, false)
}

// ownBatch reads (or locks) a batch and hides it unless organisationID owns it.
func ownBatch(ctx context.Context, tx Tx, organisationID, id string, lock bool) (Batch, error) {
	if !ValidID(id) {
		return Batch{}, NotFound("batch")
	}
	read := tx.Batch
	if lock {
		read = tx.LockBatch
	}
	b, err := read(ctx, id)
	return owned(b, err, organisationID)
}

// owned is the outcome of reading batch b: not found unless organisationID owns it.
func owned(b Batch, err error, organisationID string) (Batch, error) {
	if err != nil {
		return Batch{}, OrNotFound(err, "batch")
	}
	if b.OrganisationID != organisationID {
		return Batch{}, NotFound("batch")
	}
	return b, nil
}

// KeysetPaging is Paging, and in a keyset query its After, and one item
// more than its Take.
func KeysetPaging(v *Validation, q ListQuery) (skip, take int, after string) {
	skip, take = Paging(v, q)
	if !q.Keyset {
		return skip, take, ""
	}
	if q.After != "" && !ValidID(q.After) {
		v.Add(-1, "Cursor", q.After, "cursor must be the nextCursor of a page of this list")
	}
	return 0, take + 1, q.After
}

// Paging validates a list's skip (≥ 0, default 0) and take (1 to 1000,
// default 1000), the same for every list of the API, into v.
func Paging(v *Validation, q ListQuery) (skip, take int) {
	take = maxTake
	if q.Skip != "" {
		n, err := strconv.Atoi(q.Skip)
		if err != nil || n < 0 {
			v.Add(-1, "Skip", q.Skip, "skip must be a whole number, 0 or more")
		}
		skip = n
	}
	if q.Take != "" {
		n, err := strconv.Atoi(q.Take)
		if err != nil || n < 1 || n > maxTake {
			v.Add(-1, "Take", q.Take, "take must be a whole number from 1 to 1000")
		}
		take = n
	}
	return skip, take
}

// UpdateBatch replaces a DRAFT batch's name and external id.
func (s *Service) UpdateBatch(ctx context.Context, organisationID, id string, in BatchInput) (Batch, error) {
	var b Batch
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if b, err = ownBatch(ctx, tx, organisationID, id, true); err != nil {
			return err
		}
		if err := validateBatchInput(in); err != nil {
			return err
		}
		if err := checkAllowed(b, ActionUpdate); err != nil {
			return err
		}
		before := auditBatch(b)
		b.Name, b.ExternalID = in.Name, in.ExternalID
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.audit(ctx, tx, ActorOf(ctx), "batch.updated", organisationID, b.ID, Change(before, auditBatch(b)))
	})
	return b, err
}
