package disburse

import "time"

// EventType names what happened to a batch, a payment or an approval, as
// an organisation's webhook endpoints receive it (docs/webhooks.md).
type EventType string

// The events. A batch's events carry the batch, a payment's the payment,
// an approval's the approval.
const (
	// EventBatchSubmitted: the batch was submitted and is OPEN or CLOSED;
	// its payments, each with its status, are paged from
	// GET /batches/{id}/payments rather than sent one event each.
	EventBatchSubmitted EventType = "batch.submitted"
	// EventBatchClosed: nothing is pending any more, at submit or later.
	EventBatchClosed EventType = "batch.closed"
	// EventBatchCancelled: the batch was cancelled; its legs that were
	// DRAFT or PENDING are CANCELLED.
	EventBatchCancelled EventType = "batch.cancelled"
	// EventPaymentSettled: a PENDING payment leg settled (its payee registered).
	EventPaymentSettled EventType = "payment.settled"
	// EventPaymentReversed: a PENDING payment leg was reversed at the end of
	// the reversal period.
	EventPaymentReversed EventType = "payment.reversed"
	// EventReferralSettled: a PENDING referral leg settled.
	EventReferralSettled EventType = "payment.referral.settled"
	// EventReferralReversed: a PENDING referral leg was reversed.
	EventReferralReversed EventType = "payment.referral.reversed"
	// EventApprovalRequested: a submit of a batch at or above the
	// approval threshold waits for an approver (docs/api.md section 4.3).
	EventApprovalRequested EventType = "approval.requested"
	// EventApprovalApproved: an approver approved; the batch was
	// submitted in the same transaction, which wrote its batch.submitted.
	EventApprovalApproved EventType = "approval.approved"
	// EventApprovalRejected: an approver rejected, or the float fell
	// short when the approval ran the submit; the batch is DRAFT again.
	EventApprovalRejected EventType = "approval.rejected"
	// EventApprovalCancelled: the batch was cancelled while its approval
	// was pending, in the transaction that wrote its batch.cancelled.
	EventApprovalCancelled EventType = "approval.cancelled"
)

// EventTypes lists every event an endpoint may subscribe to.
func EventTypes() []EventType {
	return []EventType{EventBatchSubmitted, EventBatchClosed, EventBatchCancelled,
		EventPaymentSettled, EventPaymentReversed, EventReferralSettled, EventReferralReversed,
		EventApprovalRequested, EventApprovalApproved, EventApprovalRejected, EventApprovalCancelled}
}

// WebhookEvent is one event as a use case writes it, in the transaction of
// the change that caused it (Tx.InsertWebhookEvents); the store fans it out
// into one delivery per enabled endpoint of the organisation that wants it.
// The endpoints and their deliveries are the webhooks package's.
type WebhookEvent struct {
	OrganisationID string
	Type           EventType
	ResourceID     string // the batch's, the payment's or the approval's id
	At             time.Time
}
