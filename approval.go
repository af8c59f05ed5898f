package disburse

import (
	"context"
	"errors"
	"time"
)

// Four-eyes approval of a submit (docs/api.md section 4.3). An
// organisation that sets an approval threshold has every submit of a
// batch at or above it wait for a second person: the submit requests an
// approval and pays nothing, the batch stays DRAFT and takes no change but
// a cancel, and an approver who is not the requester approves, which runs
// the submit in the same transaction, or rejects, which frees the batch.
// Each step is one transaction of the batch, with its events and audit
// entry, so an approval is in the money's transactions: the batch is
// locked first, then the approval (docs/ledger.md, "Lock order").

// ApprovalStatus is where an approval stands (docs/states.md).
type ApprovalStatus string

const (
	ApprovalPending   ApprovalStatus = "PENDING"   // waiting for an approver; its batch is held
	ApprovalApproved  ApprovalStatus = "APPROVED"  // approved; its batch was submitted in the same transaction
	ApprovalRejected  ApprovalStatus = "REJECTED"  // rejected, or refused by the float check at approval; its batch is DRAFT and free
	ApprovalCancelled ApprovalStatus = "CANCELLED" // its batch was cancelled while the approval waited
)

// ApprovalStatuses lists every approval status.
func ApprovalStatuses() []ApprovalStatus {
	return []ApprovalStatus{ApprovalPending, ApprovalApproved, ApprovalRejected, ApprovalCancelled}
}

// Approval is a request that a second person let a batch's submit run.
// The totals are the batch's when it was requested, which cannot change
// while it waits.
type Approval struct {
	ID              string
	OrganisationID  string
	BatchID         string
	Status          ApprovalStatus
	RequestedBy     Actor
	RequestedAt     time.Time
	PaymentsCount   int64
	PaymentsAmount  Money
	ReferralsAmount Money
	DecidedBy       Actor     // who approved, rejected or cancelled it; zero while PENDING
	DecidedAt       time.Time // zero while PENDING
	Comment         string    // the decider's; for a refusal by the float check, the check's message
	// Refusal is the submit's failure that rejected the approval an
	// approve ran (too little float), set only on the approval Approve
	// returns, for its answer. No store keeps it, and no read fills it.
	Refusal *Error
}

// ApprovalFilter narrows the list of an organisation's approvals.
type ApprovalFilter struct {
	Status     ApprovalStatus // empty: every status
	Skip, Take int
	After      string // when not empty: the approvals after this one, in the list's order
}

// maxComment bounds a decision's comment.
const maxComment = 1000

// requestApproval holds the locked DRAFT batch b for a new approval: the
// submit that calls it pays nothing.
func (s *Service) requestApproval(ctx context.Context, tx Tx, org Organisation, b *Batch) (Approval, error) {
	a := Approval{ID: NewID(), OrganisationID: org.ID, BatchID: b.ID, Status: ApprovalPending,
		RequestedBy: ActorOf(ctx), RequestedAt: s.Now(),
		PaymentsCount: b.Summary.PaymentsCount, PaymentsAmount: b.Summary.PaymentsAmount, ReferralsAmount: b.Summary.ReferralsAmount}
	if err := tx.InsertApproval(ctx, a); err != nil {
		return Approval{}, err
	}
	b.ApprovalID = a.ID
	if err := tx.UpdateBatch(ctx, *b); err != nil {
		return Approval{}, err
	}
	if err := insertEvents(ctx, tx, approvalEvent(EventApprovalRequested, a, a.RequestedAt)); err != nil {
		return Approval{}, err
	}
	return a, s.audit(ctx, tx, a.RequestedBy, "approval.requested", org.ID, a.ID, map[string]any{
		"batchId": b.ID, "paymentsCount": a.PaymentsCount, "paymentsAmount": a.PaymentsAmount.String(),
		"referralsAmount": a.ReferralsAmount.String(), "threshold": org.ApprovalThreshold.String()})
}

// Approve approves a PENDING approval of the organisation's and runs its
// batch's submit in the same transaction, the approver (the actor in ctx)
// its actor. The approver may not be the requester (CodeForbidden). When
// the float no longer covers the batch, the approval is rejected instead,
// the batch freed, and that commits: Approve then returns the approval,
// the batch and the submit's insufficient_float error.
func (s *Service) Approve(ctx context.Context, organisationID, approvalID, comment string) (Approval, Batch, error) {
	if err := validateComment(comment); err != nil {
		return Approval{}, Batch{}, err
	}
	var a Approval
	var b Batch
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		moved = nil
		var err error
		if a, b, err = lockPendingApproval(ctx, tx, organisationID, approvalID); err != nil {
			return err
		}
		org, err := tx.Organisation(ctx, b.OrganisationID)
		if err != nil {
			return err
		}
		b.ApprovalID = ""
		moved, err = s.submitLocked(ctx, tx, org, &b, nil)
		var refusal *Error
		if errors.As(err, &refusal) && refusal.Code == CodeInsufficientFloat {
			// Refused before anything was written: free the batch and
			// keep the refusal, as a rejection.
			a.Refusal = refusal
			if err := tx.UpdateBatch(ctx, b); err != nil {
				return err
			}
			return s.decide(ctx, tx, &a, ApprovalRejected, "not paid: "+refusal.Message)
		}
		if err != nil {
			return err
		}
		return s.decide(ctx, tx, &a, ApprovalApproved, comment)
	})
	if err != nil {
		return Approval{}, Batch{}, err
	}
	s.Report(moved)
	if a.Refusal != nil {
		return a, b, a.Refusal
	}
	return a, b, nil
}

// Reject rejects a PENDING approval of the organisation's: its batch is
// DRAFT and free again, nothing paid. The requester may not reject their
// own request (CodeForbidden); they cancel the batch instead.
func (s *Service) Reject(ctx context.Context, organisationID, approvalID, comment string) (Approval, Batch, error) {
	if err := validateComment(comment); err != nil {
		return Approval{}, Batch{}, err
	}
	var a Approval
	var b Batch
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if a, b, err = lockPendingApproval(ctx, tx, organisationID, approvalID); err != nil {
			return err
		}
		b.ApprovalID = ""
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.decide(ctx, tx, &a, ApprovalRejected, comment)
	})
	if err != nil {
		return Approval{}, Batch{}, err
	}
	return a, b, nil
}

// withdrawApproval cancels the PENDING approval a held batch is being
// cancelled out of, in the cancel's transaction, which holds the batch.
func (s *Service) withdrawApproval(ctx context.Context, tx Tx, b *Batch) error {
	a, err := tx.LockApproval(ctx, b.ApprovalID)
	if err != nil {
		return err
	}
	b.ApprovalID = ""
	if a.Status != ApprovalPending { // cannot be: a decision frees the batch
		return Errorf(CodeInvalidState, "the batch's approval is %s", a.Status)
	}
	return s.decide(ctx, tx, &a, ApprovalCancelled, "the batch was cancelled")
}

// lockPendingApproval locks the organisation's approval id and its batch,
// the batch first, and refuses an approval that is not PENDING or whose
// decider (the actor in ctx) requested it.
func lockPendingApproval(ctx context.Context, tx Tx, organisationID, id string) (Approval, Batch, error) {
	a, err := OwnApproval(ctx, tx, organisationID, id)
	if err != nil {
		return Approval{}, Batch{}, err
	}
	b, err := tx.LockBatch(ctx, a.BatchID)
	if err != nil {
		return Approval{}, Batch{}, err
	}
	// Read again under the batch's lock: every decision holds it, so
	// what this reads stays true until the commit.
	if a, err = tx.LockApproval(ctx, id); err != nil {
		return Approval{}, Batch{}, err
	}
	if a.Status != ApprovalPending {
		return Approval{}, Batch{}, Errorf(CodeInvalidState, "the approval is %s already", a.Status)
	}
	if ActorOf(ctx).Same(a.RequestedBy) {
		return Approval{}, Batch{}, Errorf(CodeForbidden, "the requester of an approval cannot decide it: another user or API key must")
	}
	if b.ApprovalID != a.ID { // cannot be: the batch is held until the decision
		return Approval{}, Batch{}, Errorf(CodeInvalidState, "the batch does not wait for this approval")
	}
	return a, b, nil
}

// decide writes a's decision by the actor in ctx, with its event and
// audit entry; the caller has written the batch.
func (s *Service) decide(ctx context.Context, tx Tx, a *Approval, status ApprovalStatus, comment string) error {
	a.Status, a.DecidedBy, a.DecidedAt, a.Comment = status, ActorOf(ctx), s.Now(), comment
	if err := tx.UpdateApproval(ctx, *a); err != nil {
		return err
	}
	event, action := decisionEvents[status], "approval."+decisionActions[status]
	if err := insertEvents(ctx, tx, approvalEvent(event, *a, a.DecidedAt)); err != nil {
		return err
	}
	details := map[string]any{"batchId": a.BatchID, "comment": a.Comment}
	if a.Refusal != nil {
		details["reason"] = string(a.Refusal.Code)
		details["required"], details["available"] = a.Refusal.Required.String(), a.Refusal.Available.String()
	}
	return s.audit(ctx, tx, a.DecidedBy, action, a.OrganisationID, a.ID, details)
}

// The event and the audit action of each decision.
var (
	decisionEvents = map[ApprovalStatus]EventType{ApprovalApproved: EventApprovalApproved,
		ApprovalRejected: EventApprovalRejected, ApprovalCancelled: EventApprovalCancelled}
	decisionActions = map[ApprovalStatus]string{ApprovalApproved: "approved",
		ApprovalRejected: "rejected", ApprovalCancelled: "cancelled"}
)

// approvalEvent is an event about approval a.
func approvalEvent(t EventType, a Approval, at time.Time) WebhookEvent {
	return WebhookEvent{OrganisationID: a.OrganisationID, Type: t, ResourceID: a.ID, At: at}
}

// validateComment checks a decision's comment: text, at most maxComment characters.
func validateComment(comment string) error {
	var v Validation
	if v.Text(-1, "Comment", comment) && len([]rune(comment)) > maxComment {
		v.Add(-1, "Comment", comment, "comment is at most 1000 characters")
	}
	return v.Err()
}

// OwnApproval reads an approval in tx and hides it unless organisationID
// owns it: another organisation's is not found (package approvals reads
// them through it).
func OwnApproval(ctx context.Context, tx Tx, organisationID, id string) (Approval, error) {
	if !ValidID(id) {
		return Approval{}, NotFound("approval")
	}
	a, err := tx.Approval(ctx, id)
	if err != nil {
		return Approval{}, OrNotFound(err, "approval")
	}
	if a.OrganisationID != organisationID {
		return Approval{}, NotFound("approval")
	}
	return a, nil
}
