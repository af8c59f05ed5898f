package usecasetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
	"github.com/disburse/disburse/sandbox"
)

// RunSandbox runs the sandbox's use cases (docs/sandbox.md) on a store:
// its keys, its members apart from the live ones, its expire and deposit,
// and its ledger scope, beside a live organisation paying the same payees.
func RunSandbox(t *testing.T, open func(t *testing.T) disburse.Store) {
	tests := []struct {
		name string
		run  func(*testing.T, disburse.Store)
	}{
		{"Keys", testSandboxKeys},
		{"MembersApart", testSandboxMembersApart},
		{"ExpireAsTheSweep", testSandboxExpireAsTheSweep},
		{"Deposit", testSandboxDeposit},
		{"Preview", testSandboxPreview},
		{"LedgerScopes", testSandboxLedgerScopes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// Payees of the sandbox tests, valid to libphonenumber.
const (
	sandboxPayee    = "254712000101"
	sandboxPayee2   = "254712000102"
	sandboxPayee3   = "254712000103"
	sandboxPayee4   = "254712000104"
	sandboxCurrency = "KES" // the organisations' default
)

// sandboxFixture is a live organisation (the fixture's) and a sandbox one
// beside it, both with a float and a reversal period of an hour.
type sandboxFixture struct {
	*fixture
	sandbox, sandboxAccount string
}

func newSandboxFixture(t *testing.T, store disburse.Store) *sandboxFixture {
	t.Helper()
	f := &sandboxFixture{fixture: newFixture(t, store)}
	org, accounts, err := organisations.Create(f.ctx, f.svc, organisations.NewOrganisation{Name: "Sandbox Ltd", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if !org.Sandbox {
		t.Fatalf("organisation %+v is not a sandbox", org)
	}
	hour := int64(3600)
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, org.ID, organisations.Settings{ReversalPeriodSeconds: &hour}); err != nil {
		t.Fatal(err)
	}
	f.sandbox, f.sandboxAccount = org.ID, accounts[0].ID
	if _, err := sandbox.Deposit(f.ctx, f.svc, org.ID, "", "100000", sandboxCurrency, "float"); err != nil {
		t.Fatal(err)
	}
	return f
}

// submitted submits a new batch of orgID paying 10.00 to each payee and
// returns its id.
func (f *sandboxFixture) submitted(t *testing.T, orgID string, payees ...string) string {
	t.Helper()
	b, err := f.svc.CreateBatch(f.ctx, orgID, disburse.BatchInput{Name: "sandbox test"})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]disburse.PaymentInput, len(payees))
	for i, p := range payees {
		in[i] = disburse.PaymentInput{Msisdn: p, Amount: "10.00"}
	}
	clear := false
	if _, _, err := f.svc.AddPayments(f.ctx, orgID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, orgID, b.ID); err != nil {
		t.Fatal(err)
	}
	return b.ID
}

// status is the status of orgID's payment to msisdn in the batch.
func (f *sandboxFixture) status(t *testing.T, orgID, batchID, msisdn string) disburse.PaymentStatus {
	t.Helper()
	ps, err := lists.Payments(f.ctx, f.svc, orgID, batchID, disburse.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Msisdn == msisdn {
			return p.Status
		}
	}
	t.Fatalf("no payment to %s in batch %s", msisdn, batchID)
	return ""
}

// wantStatus fails unless each batch's payment to msisdn is in want.
func (f *sandboxFixture) wantStatus(t *testing.T, what string, orgID, batchID, msisdn string, want disburse.PaymentStatus) {
	t.Helper()
	if got := f.status(t, orgID, batchID, msisdn); got != want {
		t.Errorf("%s: payment is %s, want %s", what, got, want)
	}
}

func (f *sandboxFixture) wantLedgerSound(t *testing.T) {
	t.Helper()
	report, err := f.svc.CheckLedger(f.ctx)
	if err != nil || !report.OK {
		t.Errorf("CheckLedger = %+v, %v; want no problem", report, err)
	}
}

// testSandboxKeys: a sandbox's API keys start dak_test_ and exchange for
// tokens as live keys do; a live organisation's keep dak_.
func testSandboxKeys(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	authStore, ok := store.(interface{ Auth() auth.Store })
	if !ok {
		t.Skip("the store has no auth port")
	}
	keys := auth.New(authStore.Auth(), f.svc)
	for _, tc := range []struct {
		org        string
		wantPrefix string
		test       bool
	}{{f.sandbox, "dak_test_", true}, {f.org, "dak_", false}} {
		key, secret, err := keys.CreateAPIKey(f.ctx, tc.org)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, tc.wantPrefix) || strings.HasPrefix(secret, "dak_test_") != tc.test ||
			!strings.HasPrefix(secret, key.Prefix) || len(key.Prefix) != len(tc.wantPrefix)+6 {
			t.Errorf("key of %s: secret %.12s…, shown prefix %q; want %s", tc.org, secret, key.Prefix, tc.wantPrefix)
		}
		token, _, err := keys.IssueToken(f.ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if caller, err := keys.Authenticate(f.ctx, token); err != nil || caller.OrganisationID != tc.org {
			t.Errorf("Authenticate = %+v, %v; want organisation %s", caller, err, tc.org)
		}
	}
}

// testSandboxMembersApart: a payee registered in the sandbox is a member
// of the sandbox only, and a live member is none of the sandbox's, at
// submit, at registration, in the member check and in the sweep.
func testSandboxMembersApart(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	live := f.submitted(t, f.org, sandboxPayee, sandboxPayee2)
	sb := f.submitted(t, f.sandbox, sandboxPayee, sandboxPayee2)

	reg, err := sandbox.RegisterMember(f.ctx, f.svc, f.sandbox, sandboxPayee)
	if err != nil || !reg.Created || reg.Settled != 1 || reg.Member.Msisdn != sandboxPayee {
		t.Fatalf("sandbox.RegisterMember = %+v, %v; want created, 1 settled", reg, err)
	}
	f.wantStatus(t, "sandbox's leg to its new member", f.sandbox, sb, sandboxPayee, disburse.PaymentSettled)
	f.wantStatus(t, "live leg to the sandbox's member", f.org, live, sandboxPayee, disburse.PaymentPending)
	if exists, err := f.svc.MemberExists(f.ctx, f.org, sandboxPayee); err != nil || exists {
		t.Errorf("MemberExists(sandbox's member), to the live organisation = %v, %v; want false", exists, err)
	}
	if exists, err := f.svc.MemberExists(f.ctx, f.sandbox, sandboxPayee); err != nil || !exists {
		t.Errorf("MemberExists(sandbox's member), to the sandbox = %v, %v; want true", exists, err)
	}
	if again, err := sandbox.RegisterMember(f.ctx, f.svc, f.sandbox, sandboxPayee); err != nil || again.Created || again.Settled != 0 {
		t.Errorf("second sandbox.RegisterMember = %+v, %v; want not created, nothing settled", again, err)
	}
	paidAtOnce := f.submitted(t, f.sandbox, sandboxPayee)
	f.wantStatus(t, "sandbox's submit to its member", f.sandbox, paidAtOnce, sandboxPayee, disburse.PaymentSettled)

	// A live registration settles the live leg, not the sandbox's.
	if _, created, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: sandboxPayee2}); err != nil || !created {
		t.Fatalf("RegisterMember = %v, %v", created, err)
	}
	f.wantStatus(t, "live leg to the new live member", f.org, live, sandboxPayee2, disburse.PaymentSettled)
	f.wantStatus(t, "sandbox's leg to a live member", f.sandbox, sb, sandboxPayee2, disburse.PaymentPending)
	heldInSandbox := f.submitted(t, f.sandbox, sandboxPayee2)
	f.wantStatus(t, "sandbox's submit to a live member", f.sandbox, heldInSandbox, sandboxPayee2, disburse.PaymentPending)
	heldLive := f.submitted(t, f.org, sandboxPayee)
	f.wantStatus(t, "live submit to the sandbox's member", f.org, heldLive, sandboxPayee, disburse.PaymentPending)

	// The member check and the sweep ask the right members too: past the
	// period the sandbox's legs to a live member, and the live legs to
	// the sandbox's member, are reversed, not settled.
	if _, err := f.svc.SettleMembersPending(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.wantStatus(t, "after the member check, sandbox's leg to a live member", f.sandbox, heldInSandbox, sandboxPayee2, disburse.PaymentPending)
	f.wantStatus(t, "after the member check, live leg to the sandbox's member", f.org, heldLive, sandboxPayee, disburse.PaymentPending)
	f.advance(2 * time.Hour)
	if _, err := f.svc.ReverseDue(f.ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ org, batch, payee string }{
		{f.sandbox, heldInSandbox, sandboxPayee2}, {f.sandbox, sb, sandboxPayee2},
		{f.org, heldLive, sandboxPayee}, {f.org, live, sandboxPayee},
	} {
		f.wantStatus(t, "after the sweep, a leg to a member of the other scope", c.org, c.batch, c.payee, disburse.PaymentCancelled)
	}
	f.wantLedgerSound(t)
}

// transferReader is the store's read of a payment's transfers (the
// portal's port has it): the test compares what expire wrote with what
// the sweep writes.
type transferReader interface {
	PaymentTransfers(ctx context.Context, paymentID string) ([]disburse.Transfer, error)
}

// legTransfers is what moved for each payment of a batch, in the order the
// payments were added: the kind, accounts and amount of each transfer.
func (f *sandboxFixture) legTransfers(t *testing.T, store disburse.Store, batchID string) [][]string {
	t.Helper()
	ps, err := lists.Payments(f.ctx, f.svc, f.sandbox, batchID, disburse.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	err = store.Read(f.ctx, func(tx disburse.Tx) error {
		reader, ok := tx.(transferReader)
		if !ok {
			t.Skip("the store cannot list a payment's transfers")
		}
		for _, p := range ps {
			ts, err := reader.PaymentTransfers(f.ctx, p.ID)
			if err != nil {
				return err
			}
			var moved []string
			for _, tr := range ts {
				moved = append(moved, strings.Join([]string{string(tr.Kind), string(tr.Leg), tr.FromAccountID, tr.ToAccountID, tr.Amount.String()}, " "))
			}
			out = append(out, moved)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testSandboxExpireAsTheSweep: expire reverses a batch's held legs now,
// with the transfers the reversal worker writes for an identical batch
// once its period ends, and settles a leg to a member of the sandbox; it
// refuses a batch that is not OPEN, another organisation's, and a live
// organisation.
func testSandboxExpireAsTheSweep(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	expired := f.submitted(t, f.sandbox, sandboxPayee, sandboxPayee2)
	swept := f.submitted(t, f.sandbox, sandboxPayee, sandboxPayee2)

	b, n, err := sandbox.ExpireBatch(f.ctx, f.svc, f.sandbox, expired)
	if err != nil || n != 2 || b.Status != disburse.BatchClosed || b.Summary.CancelledCount != 2 || b.Summary.HeldAmount != 0 {
		t.Fatalf("sandbox.ExpireBatch = %+v, %d, %v; want CLOSED, 2 cancelled", b, n, err)
	}
	f.wantStatus(t, "the other batch, not expired", f.sandbox, swept, sandboxPayee, disburse.PaymentPending)
	f.advance(2 * time.Hour)
	if n, err := f.svc.ReverseDue(f.ctx); err != nil || n != 2 {
		t.Fatalf("ReverseDue = %d, %v; want the other batch's 2", n, err)
	}
	if diff := cmp.Diff(f.legTransfers(t, store, swept), f.legTransfers(t, store, expired)); diff != "" {
		t.Errorf("expire's transfers differ from the sweep's (-sweep +expire):\n%s", diff)
	}

	// Members who registered while the submit ran, as the member check
	// and the sweep meet them: the sandbox's check settles its members'
	// legs, and expire settles a leg to a member rather than reverse it.
	raw, ok := store.(interface {
		ExecRaw(ctx context.Context, query string, args ...any) error
	})
	if !ok {
		t.Skip("the store cannot run raw SQL")
	}
	registerDuringSubmit := func(msisdn string) {
		t.Helper()
		if err := raw.ExecRaw(f.ctx, `INSERT INTO sandbox_members (organisation_id, msisdn, registered_at) VALUES (?, ?, 0)`,
			f.sandbox, msisdn); err != nil {
			t.Fatal(err)
		}
	}
	member := f.submitted(t, f.sandbox, sandboxPayee3, sandboxPayee, sandboxPayee4)
	registerDuringSubmit(sandboxPayee3)
	if _, err := f.svc.SettleMembersPending(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.wantStatus(t, "after the member check, leg to a member", f.sandbox, member, sandboxPayee3, disburse.PaymentSettled)
	registerDuringSubmit(sandboxPayee4)
	if _, _, err := sandbox.ExpireBatch(f.ctx, f.svc, f.sandbox, member); err != nil {
		t.Fatal(err)
	}
	f.wantStatus(t, "expired leg to a member", f.sandbox, member, sandboxPayee4, disburse.PaymentSettled)
	f.wantStatus(t, "expired leg to a non-member", f.sandbox, member, sandboxPayee, disburse.PaymentCancelled)

	draft, err := f.svc.CreateBatch(f.ctx, f.sandbox, disburse.BatchInput{Name: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	liveBatch := f.submitted(t, f.org, sandboxPayee)
	for _, c := range []struct {
		name, org, batch string
		code             disburse.Code
	}{
		{"CLOSED", f.sandbox, expired, disburse.CodeInvalidState},
		{"DRAFT", f.sandbox, draft.ID, disburse.CodeInvalidState},
		{"another organisation's", f.sandbox, liveBatch, disburse.CodeNotFound},
		{"by a live organisation", f.org, liveBatch, disburse.CodeNotFound},
		{"no such id", f.sandbox, "nope", disburse.CodeNotFound},
	} {
		_, _, err := sandbox.ExpireBatch(f.ctx, f.svc, c.org, c.batch)
		if code := codeOf(err); code != c.code {
			t.Errorf("expire %s: %v, want %s", c.name, err, c.code)
		}
	}
	f.wantStatus(t, "live batch after a refused expire", f.org, liveBatch, sandboxPayee, disburse.PaymentPending)
	f.wantLedgerSound(t)
}

func codeOf(err error) disburse.Code {
	var e *disburse.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// testSandboxPreview: what a submit of a sandbox's DRAFT batch would do
// counts the sandbox's members as paid, a live member as held, whether
// they registered before the payments were added or after.
func testSandboxPreview(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: sandboxPayee2}); err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.RegisterMember(f.ctx, f.svc, f.sandbox, sandboxPayee); err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.CreateBatch(f.ctx, f.sandbox, disburse.BatchInput{Name: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	in := []disburse.PaymentInput{{Msisdn: sandboxPayee, Amount: "1"}, {Msisdn: sandboxPayee2, Amount: "2"}, {Msisdn: sandboxPayee3, Amount: "4"}}
	if _, _, err := f.svc.AddPayments(f.ctx, f.sandbox, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.RegisterMember(f.ctx, f.svc, f.sandbox, sandboxPayee3); err != nil {
		t.Fatal(err)
	}
	office, ok := store.(backoffice.Store)
	if !ok {
		t.Skip("the store is not the back office's")
	}
	p, err := backoffice.NewService(office).Preview(f.ctx, f.sandbox, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := backoffice.DraftLegs{Paid: backoffice.LegTotal{Count: 2, Amount: 5_00}, Held: backoffice.LegTotal{Count: 1, Amount: 2_00}}
	if diff := cmp.Diff(want, p.Legs); diff != "" {
		t.Errorf("preview's legs (-want +got):\n%s", diff)
	}
}

// testSandboxDeposit: a sandbox tops up its float from its own funding
// account, in its currency; the operator's deposit into its account does
// too; a live organisation has no such call.
func testSandboxDeposit(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	tr, err := sandbox.Deposit(f.ctx, f.svc, f.sandbox, f.sandboxAccount, "250.50", sandboxCurrency, "more")
	if err != nil || tr.ToAccountID != f.sandboxAccount || tr.Amount != 250_50 || tr.Kind != disburse.TransferDeposit {
		t.Fatalf("sandbox.Deposit = %+v, %v", tr, err)
	}
	if tr.FromAccountID == disburse.FundingAccountID {
		t.Errorf("a sandbox's deposit came from the live funding account")
	}
	operator, err := f.svc.Deposit(f.ctx, f.sandboxAccount, "1.00", "")
	if err != nil || operator.FromAccountID != tr.FromAccountID {
		t.Errorf("operator's deposit into the sandbox = %+v, %v; want from the sandbox's funding %s", operator, err, tr.FromAccountID)
	}
	accounts, err := organisations.Accounts(f.ctx, f.svc, f.sandbox)
	if err != nil || len(accounts) != 1 || accounts[0].Balance != 100_000_00+250_50+1_00 || accounts[0].Scope != f.sandbox {
		t.Errorf("sandbox's accounts = %+v, %v", accounts, err)
	}
	for _, c := range []struct {
		name, org, account, amount, currency string
		code                                 disburse.Code
	}{
		{"another currency", f.sandbox, "", "1.00", "USD", disburse.CodeInvalid},
		{"no currency", f.sandbox, "", "1.00", "", disburse.CodeInvalid},
		{"no amount", f.sandbox, "", "", sandboxCurrency, disburse.CodeInvalid},
		{"a live organisation's account", f.sandbox, f.account, "1.00", sandboxCurrency, disburse.CodeNotFound},
		{"an account id in capitals", f.sandbox, strings.ToUpper(f.sandboxAccount), "1.00", sandboxCurrency, disburse.CodeNotFound},
		{"not an account id", f.sandbox, "float", "1.00", sandboxCurrency, disburse.CodeNotFound},
		{"no amount into no account", f.sandbox, disburse.NewID(), "", sandboxCurrency, disburse.CodeInvalid},
		{"by a live organisation", f.org, f.account, "1.00", sandboxCurrency, disburse.CodeNotFound},
	} {
		if _, err := sandbox.Deposit(f.ctx, f.svc, c.org, c.account, c.amount, c.currency, ""); codeOf(err) != c.code {
			t.Errorf("deposit %s: %v, want %s", c.name, err, c.code)
		}
	}
	// A payout account the operator adds to a sandbox is in its scope.
	second, err := organisations.CreateAccount(f.ctx, f.svc, f.sandbox, "Second")
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := sandbox.Deposit(f.ctx, f.svc, f.sandbox, second.ID, "3.00", sandboxCurrency, ""); err != nil || tr.ToAccountID != second.ID {
		t.Errorf("deposit into the second account = %+v, %v", tr, err)
	}
	if _, err := sandbox.RegisterMember(f.ctx, f.svc, f.org, sandboxPayee); codeOf(err) != disburse.CodeNotFound {
		t.Errorf("a live organisation registers a sandbox member: %v, want not_found", err)
	}
	f.wantLedgerSound(t)
}

// testSandboxLedgerScopes: live and sandbox money side by side audit
// clean; a transfer written across the scopes is found, and so is an
// account moved out of its organisation's scope.
func testSandboxLedgerScopes(t *testing.T, store disburse.Store) {
	f := newSandboxFixture(t, store)
	f.submitted(t, f.org, sandboxPayee, sandboxPayee2)
	f.submitted(t, f.sandbox, sandboxPayee, sandboxPayee2)
	if _, err := sandbox.RegisterMember(f.ctx, f.svc, f.sandbox, sandboxPayee); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: sandboxPayee}); err != nil {
		t.Fatal(err)
	}
	f.wantLedgerSound(t)

	raw, ok := store.(interface {
		ExecRaw(ctx context.Context, query string, args ...any) error
	})
	if !ok {
		t.Skip("the store cannot run raw SQL")
	}
	// A deposit into the sandbox from the live funding account, written
	// as a faulty use case would: through the store, balances and all.
	cross := disburse.Transfer{ID: disburse.NewID(), FromAccountID: disburse.FundingAccountID, ToAccountID: f.sandboxAccount,
		Amount: 5_00, Kind: disburse.TransferDeposit, CreatedAt: f.now}
	if err := store.Write(f.ctx, func(tx disburse.Tx) error { return tx.InsertTransfers(f.ctx, []disburse.Transfer{cross}) }); err != nil {
		t.Fatal(err)
	}
	wantProblems(t, f.svc, "a transfer across scopes",
		"transfer "+cross.ID+": moves money from scope live into scope "+f.sandbox,
		"sum of balances: -5.00, not 0.00", "sum of balances of sandbox "+f.sandbox+": 5.00, not 0.00")
	for _, q := range []struct{ query, arg string }{
		{`DELETE FROM transfers WHERE id = ?`, cross.ID},
		{`UPDATE accounts SET balance = balance + 500 WHERE id = ?`, disburse.FundingAccountID},
		{`UPDATE accounts SET balance = balance - 500 WHERE id = ?`, f.sandboxAccount},
	} {
		if err := raw.ExecRaw(f.ctx, q.query, q.arg); err != nil {
			t.Fatal(err)
		}
	}
	f.wantLedgerSound(t)

	// An account of the sandbox moved out of its scope.
	if err := raw.ExecRaw(f.ctx, `UPDATE accounts SET sandbox_organisation_id = NULL WHERE id = ?`, f.sandboxAccount); err != nil {
		t.Fatal(err)
	}
	wantProblems(t, f.svc, "an account out of its scope",
		"account "+f.sandboxAccount+" (PAYOUT): not in its organisation's ledger scope", "transfer ")
	if err := raw.ExecRaw(f.ctx, `UPDATE accounts SET sandbox_organisation_id = '`+f.sandbox+`' WHERE id = ?`, f.sandboxAccount); err != nil {
		t.Fatal(err)
	}
	f.wantLedgerSound(t)
}

// wantProblems fails unless, for each of want, a problem of the ledger
// check starts with it.
func wantProblems(t *testing.T, svc *disburse.Service, what string, want ...string) {
	t.Helper()
	report, err := svc.CheckLedger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		found := false
		for _, p := range report.Problems {
			found = found || strings.HasPrefix(p, w)
		}
		if !found {
			t.Errorf("%s: no problem starts with %q; problems:\n%s", what, w, strings.Join(report.Problems, "\n"))
		}
	}
}
