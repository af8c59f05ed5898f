package disburse

// BatchStatus is the state of a Batch (docs/api.md section S3.1). docs/states.md draws the machine.
type BatchStatus string

const (
	BatchDraft     BatchStatus = "DRAFT"     // new; payments can be added, removed, details updated
	BatchOpen      BatchStatus = "OPEN"      // submitted; some legs wait for non-members
	BatchClosed    BatchStatus = "CLOSED"    // every leg settled or reversed; immutable
	BatchCancelled BatchStatus = "CANCELLED" // cancelled by the organisation; immutable
)

// BatchStatuses lists every batch status in the order GET /batches/statusCodes returns them.
func BatchStatuses() []BatchStatus {
	return []BatchStatus{BatchDraft, BatchOpen, BatchClosed, BatchCancelled}
}

// PaymentStatus is the state of a Payment, and of its referral leg (docs/api.md section S3.2).
type PaymentStatus string

const (
	PaymentDraft     PaymentStatus = "DRAFT"     // added to a DRAFT batch; no money moved
	PaymentPending   PaymentStatus = "PENDING"   // funds held for a non-member
	PaymentCancelled PaymentStatus = "CANCELLED" // cancelled with its batch, or reversed
	PaymentSettled   PaymentStatus = "SETTLED"   // paid into the payee's wallet
	PaymentDeleted   PaymentStatus = "DELETED"   // removed from a DRAFT batch
)

// PaymentStatuses lists every payment status in the order GET /payments/statusCodes returns them.
func PaymentStatuses() []PaymentStatus {
	return []PaymentStatus{PaymentDraft, PaymentPending, PaymentCancelled, PaymentSettled, PaymentDeleted}
}

// Action is something that changes a batch or its payments.
type Action string

const (
	ActionUpdate        Action = "update"         // PUT /batches/{id}
	ActionAddPayments   Action = "add payments"   // POST /batches/{id}/payments
	ActionDeletePayment Action = "delete payment" // DELETE /payments/{id}
	ActionSubmit        Action = "submit"         // POST /batches/{id}/submit
	ActionCancel        Action = "cancel"         // POST /batches/{id}/cancel
)

// batchActions is the transition table the use cases consult: which actions a
// batch accepts in each state (docs/api.md sections S3.1 and 6).
var batchActions = map[BatchStatus]map[Action]bool{
	BatchDraft: {ActionUpdate: true, ActionAddPayments: true, ActionDeletePayment: true, ActionSubmit: true, ActionCancel: true},
	BatchOpen:  {ActionCancel: true},
}

// Allows reports whether a batch in status s accepts action a.
func (s BatchStatus) Allows(a Action) bool { return batchActions[s][a] }

// checkAllowed returns the invalid_state error for an action a batch
// refuses. A DRAFT batch whose submit waits for an approval takes only a
// cancel (docs/states.md): what the approver approves does not change
// under them.
func checkAllowed(b Batch, a Action) error {
	if b.ApprovalID != "" && a != ActionCancel {
		return Errorf(CodeInvalidState, "cannot %s: batch is DRAFT and its submit waits for approval %s", a, b.ApprovalID)
	}
	if b.Status.Allows(a) {
		return nil
	}
	return Errorf(CodeInvalidState, "cannot %s: batch is %s", a, b.Status)
}
