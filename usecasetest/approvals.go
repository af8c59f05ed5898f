package usecasetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/approvals"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/webhooks"
)

// RunApprovals runs four-eyes approval of a submit (docs/api.md section
// 4.3) on one store: the request, each decision and a cancel, each with
// its events and audit entries, and the races between them, after which
// the submit has run at most once and the ledger is sound. Each test runs
// in parallel on a store of its own.
func RunApprovals(t *testing.T, open func(t *testing.T) disburse.Store) {
	tests := []struct {
		name string
		run  func(*testing.T, func(t *testing.T) disburse.Store)
	}{
		{"ApprovalOffPaysAtOnce", testApprovalOffPaysAtOnce},
		{"ApproveSubmits", testApproveSubmits},
		{"RejectFreesTheBatch", testRejectFreesTheBatch},
		{"ApproveWithTooLittleFloatRejects", testApproveWithTooLittleFloatRejects},
		{"CancelWithdrawsTheApproval", testCancelWithdrawsTheApproval},
		{"ApprovalsListAndTenancy", testApprovalsListAndTenancy},
		{"RacingApprovals", testRacingApprovals},
		{"ApproveRacesCancel", testApproveRacesCancel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open)
		})
	}
}

// The actors of the tests: a maker's API key, an approver's portal user,
// and another approver's API key.
var (
	maker     = disburse.Actor{Type: disburse.ActorAPIKey, ID: "0193a5c4-0000-7000-8000-00000000000a", Name: "dak_maker0"}
	approver  = disburse.Actor{Type: disburse.ActorPortalUser, ID: "0193a5c4-0000-7000-8000-00000000000b", Name: "approver@example.org"}
	approver2 = disburse.Actor{Type: disburse.ActorAPIKey, ID: "0193a5c4-0000-7000-8000-00000000000c", Name: "dak_second"}
)

// approvalFixture is a fixture whose store records what each committed
// write transaction wrote of events and audit entries.
type approvalFixture struct {
	*fixture
	rec *writeRecorder
}

func newApprovalFixture(t *testing.T, open func(t *testing.T) disburse.Store, threshold string) approvalFixture {
	t.Helper()
	rec := &writeRecorder{Store: open(t)}
	f := approvalFixture{fixture: newFixture(t, rec), rec: rec}
	f.setThreshold(t, threshold)
	return f
}

// setThreshold sets the approval threshold; "" turns approval off.
func (f approvalFixture) setThreshold(t *testing.T, threshold string) {
	t.Helper()
	set := &organisations.ThresholdSetting{Off: threshold == "", Amount: disburse.Number(threshold)}
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, f.org, organisations.Settings{ApprovalThreshold: set}); err != nil {
		t.Fatal(err)
	}
}

// as is the fixture's context with actor a.
func (f approvalFixture) as(a disburse.Actor) context.Context { return disburse.WithActor(f.ctx, a) }

// request submits batch b as the maker and requires an approval requested.
func (f approvalFixture) request(t *testing.T, b string) disburse.Approval {
	t.Helper()
	sub, err := f.svc.SubmitWatched(f.as(maker), f.org, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Approval == nil || sub.Batch.Status != disburse.BatchDraft || sub.Batch.ApprovalID != sub.Approval.ID {
		t.Fatalf("submit over the threshold: %+v, want a DRAFT batch held for a new approval", sub)
	}
	return *sub.Approval
}

// float is the payout account's balance.
func (f approvalFixture) float(t *testing.T) disburse.Money {
	t.Helper()
	accounts, err := organisations.Accounts(f.ctx, f.svc, f.org)
	if err != nil {
		t.Fatal(err)
	}
	return accounts[0].Balance
}

// testApprovalOffPaysAtOnce: without a threshold, and below one, a submit
// pays as it always did, and requests nothing.
func testApprovalOffPaysAtOnce(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "")
	for _, threshold := range []string{"", "200.01"} {
		f.setThreshold(t, threshold)
		sub, err := f.svc.SubmitWatched(f.as(maker), f.org, f.batchOf(t, 20), nil) // 200.00
		if err != nil || sub.Approval != nil || sub.Batch.Status != disburse.BatchOpen {
			t.Errorf("threshold %q: submit of 200.00 = %+v, %v; want it paid, OPEN", threshold, sub, err)
		}
	}
	if events := f.rec.eventsOf(disburse.EventApprovalRequested); len(events) != 0 {
		t.Errorf("approvals requested: %v", events)
	}
	f.checkLedger(t)
}

// testApproveSubmits: at the threshold exactly, a submit requests an
// approval and pays nothing; the batch takes no change but a cancel; the
// requester may not approve; another approver's approval pays it, in the
// approval's transaction, the approver its actor.
func testApproveSubmits(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "200")
	b := f.batchOf(t, 20) // 200.00
	before := f.float(t)
	a := f.request(t, b)
	if a.Status != disburse.ApprovalPending || a.PaymentsCount != 20 || a.PaymentsAmount != 200_00 || a.RequestedBy != maker {
		t.Errorf("approval %+v", a)
	}
	if f.float(t) != before {
		t.Errorf("a requested approval moved money: float %s, was %s", f.float(t), before)
	}
	clear := false
	held := map[string]error{
		"add": func() error {
			_, _, err := f.svc.AddPayments(f.as(maker), f.org, b, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: []disburse.PaymentInput{{Msisdn: racePayee, Amount: "1"}}})
			return err
		}(),
		"update": func() error {
			_, err := f.svc.UpdateBatch(f.as(maker), f.org, b, disburse.BatchInput{Name: "renamed"})
			return err
		}(),
		"submit": func() error { _, err := f.svc.Submit(f.as(approver), f.org, b); return err }(),
	}
	payments, err := lists.Payments(f.ctx, f.svc, f.org, b, disburse.ListQuery{Take: "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, held["delete"] = f.svc.DeletePayment(f.as(maker), f.org, payments[0].ID)
	for what, err := range held {
		if disburse.ErrorCode(err) != disburse.CodeInvalidState {
			t.Errorf("%s of a batch waiting for approval: %v, want invalid_state", what, err)
		}
	}
	if _, _, err := f.svc.Approve(f.as(disburse.Actor{Type: maker.Type, ID: maker.ID, Name: "renamed"}), f.org, a.ID, "mine"); disburse.ErrorCode(err) != disburse.CodeForbidden {
		t.Errorf("the requester's approve: %v, want forbidden", err)
	}
	if _, _, err := f.svc.Reject(f.as(maker), f.org, a.ID, ""); disburse.ErrorCode(err) != disburse.CodeForbidden {
		t.Errorf("the requester's reject: %v, want forbidden", err)
	}

	got, batch, err := f.svc.Approve(f.as(approver), f.org, a.ID, "checked against the payroll")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != disburse.ApprovalApproved || got.DecidedBy != approver || got.Comment != "checked against the payroll" || got.DecidedAt.IsZero() {
		t.Errorf("approved %+v", got)
	}
	if batch.Status != disburse.BatchOpen || batch.ApprovalID != "" || batch.Summary.PendingCount != 20 {
		t.Errorf("batch after approval %+v, want OPEN and free", batch)
	}
	if f.float(t) != before-200_00 {
		t.Errorf("float %s after approval, want %s", f.float(t), before-200_00)
	}
	if _, _, err := f.svc.Approve(f.as(approver2), f.org, a.ID, ""); disburse.ErrorCode(err) != disburse.CodeInvalidState {
		t.Errorf("a second approve: %v, want invalid_state", err)
	}
	read, err := approvals.Get(f.ctx, f.svc.Store, f.org, a.ID)
	if err != nil || read.Status != disburse.ApprovalApproved {
		t.Errorf("Approval = %+v, %v", read, err)
	}
	f.rec.wantEvents(t, disburse.EventApprovalRequested, disburse.EventBatchSubmitted, disburse.EventApprovalApproved)
	f.rec.wantAudit(t, map[string]disburse.Actor{"approval.requested": maker, "approval.approved": approver, "batch.submitted": approver})
	f.checkLedger(t)
}

// testRejectFreesTheBatch: a rejection pays nothing and frees the batch,
// which can change and be submitted again, for a new approval.
func testRejectFreesTheBatch(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "0")
	b := f.batchOf(t, 3)
	before := f.float(t)
	a := f.request(t, b)
	got, batch, err := f.svc.Reject(f.as(approver), f.org, a.ID, "wrong month")
	if err != nil || got.Status != disburse.ApprovalRejected || got.Comment != "wrong month" || batch.Status != disburse.BatchDraft || batch.ApprovalID != "" {
		t.Fatalf("reject = %+v, %+v, %v", got, batch, err)
	}
	if _, err := f.svc.UpdateBatch(f.as(maker), f.org, b, disburse.BatchInput{Name: "fixed"}); err != nil {
		t.Errorf("update after the rejection: %v", err)
	}
	if _, _, err := f.svc.Approve(f.as(approver), f.org, a.ID, ""); disburse.ErrorCode(err) != disburse.CodeInvalidState {
		t.Errorf("approve of a rejected approval: %v, want invalid_state", err)
	}
	again := f.request(t, b)
	if again.ID == a.ID {
		t.Error("the second submit reused the rejected approval")
	}
	if f.float(t) != before {
		t.Errorf("float %s, was %s: nothing was approved", f.float(t), before)
	}
	f.rec.wantEvents(t, disburse.EventApprovalRequested, disburse.EventApprovalRejected, disburse.EventApprovalRequested)
	f.checkLedger(t)
}

// testApproveWithTooLittleFloatRejects: the float is checked when the
// approval runs the submit; short, the approval is rejected, the batch
// freed, nothing moved, and the submit's error returned.
func testApproveWithTooLittleFloatRejects(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "0")
	b := f.batchOf(t, 20)
	a := f.request(t, b)
	// Spend the float elsewhere meanwhile (approval is off for a moment).
	f.setThreshold(t, "")
	big := f.batchOf(t, 1)
	clear := true
	all := f.float(t) - 100_00
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, big, disburse.AddPaymentsInput{ClearExisting: &clear,
		Payments: []disburse.PaymentInput{{Msisdn: racePayee, Amount: disburse.Number(all.String())}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, big); err != nil {
		t.Fatal(err)
	}
	got, batch, err := f.svc.Approve(f.as(approver), f.org, a.ID, "fine")
	e, ok := err.(*disburse.Error)
	if !ok || e.Code != disburse.CodeInsufficientFloat || e.Required != 200_00 || e.Available != 100_00 {
		t.Fatalf("approve with too little float: %v, want insufficient_float (200.00 needed, 100.00 there)", err)
	}
	if got.Status != disburse.ApprovalRejected || got.DecidedBy != approver || batch.Status != disburse.BatchDraft || batch.ApprovalID != "" {
		t.Errorf("after the refusal: %+v, %+v; want REJECTED and the batch DRAFT and free", got, batch)
	}
	read, err := f.svc.Batch(f.ctx, f.org, b)
	if err != nil || read.Status != disburse.BatchDraft || read.ApprovalID != "" {
		t.Errorf("the batch as stored: %+v, %v", read, err)
	}
	if f.float(t) != 100_00 {
		t.Errorf("float %s, want 100.00: nothing moved", f.float(t))
	}
	f.rec.wantEvents(t, disburse.EventApprovalRequested, disburse.EventBatchSubmitted, disburse.EventApprovalRejected)
	f.checkLedger(t)
}

// testCancelWithdrawsTheApproval: a cancel of a batch waiting for an
// approval is allowed, and cancels the approval in its transaction.
func testCancelWithdrawsTheApproval(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "0")
	b := f.batchOf(t, 3)
	a := f.request(t, b)
	batch, err := f.svc.Cancel(f.as(maker), f.org, b)
	if err != nil || batch.Status != disburse.BatchCancelled || batch.ApprovalID != "" || batch.Summary.CancelledCount != 3 {
		t.Fatalf("cancel = %+v, %v", batch, err)
	}
	got, err := approvals.Get(f.ctx, f.svc.Store, f.org, a.ID)
	if err != nil || got.Status != disburse.ApprovalCancelled || got.DecidedBy != maker {
		t.Errorf("approval after the cancel: %+v, %v; want CANCELLED by the maker", got, err)
	}
	if _, _, err := f.svc.Approve(f.as(approver), f.org, a.ID, ""); disburse.ErrorCode(err) != disburse.CodeInvalidState {
		t.Errorf("approve after the cancel: %v, want invalid_state", err)
	}
	f.rec.wantEvents(t, disburse.EventApprovalRequested, disburse.EventApprovalCancelled, disburse.EventBatchCancelled)
	f.checkLedger(t)
}

// testApprovalsListAndTenancy: the organisation's approvals, newest
// first, by status; another organisation's are not found.
func testApprovalsListAndTenancy(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "0")
	first := f.request(t, f.batchOf(t, 1))
	f.mu.Lock()
	f.now = f.now.Add(time.Microsecond) // the second is the newer
	f.mu.Unlock()
	second := f.request(t, f.batchOf(t, 1))
	if _, _, err := f.svc.Reject(f.as(approver), f.org, first.ID, ""); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[approvals.Query][]string{
		{}:                     {second.ID, first.ID},
		{Status: "PENDING"}:    {second.ID},
		{Status: "REJECTED"}:   {first.ID},
		{Skip: "1", Take: "1"}: {first.ID},
		{Status: "APPROVED"}:   nil,
	} {
		list, err := approvals.List(f.ctx, f.svc.Store, f.org, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range list {
			got = append(got, a.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Approvals(%+v) = %v, want %v", q, got, want)
		}
	}
	if _, err := approvals.List(f.ctx, f.svc.Store, f.org, approvals.Query{Status: "DONE", Take: "0"}); disburse.ErrorCode(err) != disburse.CodeInvalid {
		t.Errorf("a bad status and take: %v, want invalid", err)
	}
	other, _, err := organisations.Create(f.ctx, f.svc, organisations.NewOrganisation{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := approvals.Get(f.ctx, f.svc.Store, other.ID, second.ID); disburse.ErrorCode(err) != disburse.CodeNotFound {
		t.Errorf("another organisation's read: %v, want not_found", err)
	}
	if _, _, err := f.svc.Approve(f.as(approver), other.ID, second.ID, ""); disburse.ErrorCode(err) != disburse.CodeNotFound {
		t.Errorf("another organisation's approve: %v, want not_found", err)
	}
	if list, err := approvals.List(f.ctx, f.svc.Store, other.ID, approvals.Query{}); err != nil || len(list) != 0 {
		t.Errorf("another organisation's list: %v, %v", list, err)
	}
}

// testRacingApprovals: of approvers approving one approval at once, one
// submits the batch, once; the others find it APPROVED.
func testRacingApprovals(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newApprovalFixture(t, open, "0")
	b := f.batchOf(t, 30)
	a := f.request(t, b)
	before := f.float(t)
	errs := f.race(6, func(i int) error {
		who := approver
		if i%2 == 1 {
			who = approver2
		}
		_, _, err := f.svc.Approve(f.as(who), f.org, a.ID, "")
		return err
	})
	approved := 0
	for _, err := range errs {
		switch {
		case err == nil:
			approved++
		case disburse.ErrorCode(err) != disburse.CodeInvalidState:
			t.Errorf("approve: unexpected error %v", err)
		}
	}
	if approved != 1 {
		t.Errorf("%d approvals succeeded, want 1", approved)
	}
	if f.float(t) != before-300_00 {
		t.Errorf("float %s, want %s: the submit ran once", f.float(t), before-300_00)
	}
	if n := len(f.rec.eventsOf(disburse.EventBatchSubmitted)); n != 1 {
		t.Errorf("%d batch.submitted events, want 1", n)
	}
	f.checkLedger(t)
}

// testApproveRacesCancel: an approve and a cancel of one held batch at
// once: either the approval submits the batch (and the cancel then
// cancels it OPEN, or finds it CLOSED), or the cancel withdraws the
// approval first (and the approve finds it CANCELLED). Money is conserved
// either way.
func testApproveRacesCancel(t *testing.T, open func(t *testing.T) disburse.Store) {
	for range testenv.Pick(3, 10) {
		f := newApprovalFixture(t, open, "0")
		b := f.batchOf(t, 30)
		a := f.request(t, b)
		errs := f.race(2, func(i int) error {
			if i == 0 {
				_, _, err := f.svc.Approve(f.as(approver), f.org, a.ID, "")
				return err
			}
			_, err := f.svc.Cancel(f.as(maker), f.org, b)
			return err
		})
		for _, err := range errs {
			if err != nil && disburse.ErrorCode(err) != disburse.CodeInvalidState {
				t.Errorf("unexpected error %v", err)
			}
		}
		got, err := approvals.Get(f.ctx, f.svc.Store, f.org, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := f.svc.Batch(f.ctx, f.org, b)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case errs[0] == nil && got.Status == disburse.ApprovalApproved:
			// The approval won; the cancel returned every pending leg.
			if batch.Status != disburse.BatchCancelled || batch.Summary.CancelledCount != 30 {
				t.Errorf("approved, then cancelled: batch %+v", batch)
			}
		case errs[1] == nil && got.Status == disburse.ApprovalCancelled:
			if batch.Status != disburse.BatchCancelled || !batch.SubmittedAt.IsZero() {
				t.Errorf("withdrawn: batch %+v, want CANCELLED, never submitted", batch)
			}
		default:
			t.Errorf("approve: %v, cancel: %v; approval %s, batch %s", errs[0], errs[1], got.Status, batch.Status)
		}
		if n := len(f.rec.eventsOf(disburse.EventBatchSubmitted)); n > 1 {
			t.Errorf("%d batch.submitted events: the submit ran more than once", n)
		}
		f.checkLedger(t)
	}
}

// writeRecorder is a store that keeps the events and audit entries of
// every write transaction that committed.
type writeRecorder struct {
	disburse.Store
	mu     sync.Mutex
	events []disburse.WebhookEvent
	audit  []disburse.AuditEntry
}

func (s *writeRecorder) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	var tx *recordedTx
	err := s.Store.Write(ctx, func(t disburse.Tx) error {
		tx = &recordedTx{Tx: t} // a retry starts over
		return fn(tx)
	})
	if err == nil && tx != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.events = append(s.events, tx.events...)
		s.audit = append(s.audit, tx.audit...)
	}
	return err
}

// eventsOf lists the committed events of type et.
func (s *writeRecorder) eventsOf(et disburse.EventType) []disburse.WebhookEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []disburse.WebhookEvent
	for _, e := range s.events {
		if e.Type == et {
			out = append(out, e)
		}
	}
	return out
}

// wantEvents requires the committed events of the approvals and the
// submits and cancels, in the order written, to be want.
func (s *writeRecorder) wantEvents(t *testing.T, want ...disburse.EventType) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var got []disburse.EventType
	for _, e := range s.events {
		if webhooks.IsApprovalEvent(e.Type) || e.Type == disburse.EventBatchSubmitted || e.Type == disburse.EventBatchCancelled {
			got = append(got, e.Type)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// wantAudit requires one committed audit entry of each action, by its actor.
func (s *writeRecorder) wantAudit(t *testing.T, want map[string]disburse.Actor) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for action, actor := range want {
		n := 0
		for _, e := range s.audit {
			if e.Action == action {
				n++
				if e.Actor != actor {
					t.Errorf("%s by %+v, want %+v", action, e.Actor, actor)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d %s entries, want 1", n, action)
		}
	}
}

type recordedTx struct {
	disburse.Tx
	events []disburse.WebhookEvent
	audit  []disburse.AuditEntry
}

func (t *recordedTx) InsertWebhookEvents(ctx context.Context, events []disburse.WebhookEvent) (int, error) {
	t.events = append(t.events, events...)
	return t.Tx.InsertWebhookEvents(ctx, events)
}

func (t *recordedTx) InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error {
	t.audit = append(t.audit, es...)
	return t.Tx.InsertAudit(ctx, es...)
}
