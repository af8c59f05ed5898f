// Package storetest is the suite every disburse.Store must pass: the
// SQLite and PostgreSQL stores run the same tests, so the use cases can
// count on the same behaviour from both (docs/api.md section 9).
package storetest

import (
	"context"
	"os"
	"testing"

	"github.com/disburse/disburse"
)

// RawExecer is implemented by stores that can run one raw statement (SQL
// with ? placeholders). The suite uses it to write rows no Tx method would,
// a broken ledger, to see LedgerProblems find them; without it those tests
// are skipped.
type RawExecer interface {
	ExecRaw(ctx context.Context, query string, args ...any) error
}

// Run runs the suite of the Store and Tx methods, each test in parallel
// on a store of its own. open returns a new, empty, migrated store and
// arranges its closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) disburse.Store) {
	tests := []struct {
		name string
		run  func(*testing.T, disburse.Store)
	}{
		{"Organisation", testOrganisation},
		{"Account", testAccount},
		{"FundingAccount", testFundingAccount},
		{"PayoutAccounts", testPayoutAccounts},
		{"EnsureWallets", testEnsureWallets},
		{"InsertTransfers", testInsertTransfers},
		{"InsertTransfersRefusesNegativeBalance", testInsertTransfersRefusesNegativeBalance},
		{"InsertTransferRows", testInsertTransferRows},
		{"StatementEntries", testStatementEntries},
		{"LedgerSound", testLedgerSound},
		{"LedgerBroken", testLedgerBroken},
		{"Member", testMember},
		{"Members", testMembers},
		{"Batch", testBatch},
		{"AddToSummaries", testAddToSummaries},
		{"Batches", testBatches},
		{"InsertPaymentsKeepsOrder", testInsertPaymentsKeepsOrder},
		{"InsertPaymentsAsReady", testInsertPaymentsAsReady},
		{"Payment", testPayment},
		{"Payments", testPayments},
		{"PaymentsAfter", testPaymentsAfterPages},
		{"PagesReadEveryColumn", testPagesReadEveryColumn},
		{"ExternalIDsInUse", testExternalIDsInUse},
		{"InsertTakenExternalIDs", testInsertTakenExternalIDs},
		{"UpdatePaymentStates", testUpdatePaymentStates},
		{"UpdateManyPaymentStates", testUpdateManyPaymentStates},
		{"DeleteDraftPayments", testDeleteDraftPayments},
		{"InsertMembersLockingLegs", testInsertMembersLockingLegs},
		{"ClaimDueLegs", testClaimDueLegs},
		{"Approval", testApproval},
		{"OnePendingApprovalABatch", testOnePendingApprovalABatch},
		{"Approvals", testApprovals},
		{"Notifications", testNotifications},
		{"Together", testTogether},
		{"TogetherFails", testTogetherFails},
		{"WriteRollsBack", testWriteRollsBack},
		{"WriteSurvivesPanic", testWriteSurvivesPanic},
		{"ReadIsReadOnly", testReadIsReadOnly},
		{"ConcurrentWrites", testConcurrentWrites},
		{"Ping", testPing},
		{"SchemaCurrent", testSchemaCurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// SchemaFile compares got, the schema an engine's migrations build, with
// the checked-in file name, or writes it when DISBURSE_UPDATE_SCHEMA is set,
// as go generate does (docs/operations.md, "Migrations").
func SchemaFile(t *testing.T, name, got string) {
	t.Helper()
	if os.Getenv("DISBURSE_UPDATE_SCHEMA") != "" {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is stale, not what the migrations build: run go generate ./... (with DISBURSE_TEST_POSTGRES_URL set) and commit it.\ngot:\n%s", name, got)
	}
}
