package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/sqlite/sqlitetest"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/storetest"
	"github.com/disburse/disburse/usecasetest"
)

// openTest returns a store on a new file in the test's temp dir.
func openTest(t *testing.T, e Engine) *sqlstore.Store {
	t.Helper()
	return openAt(t, sqlitetest.Path(t, Migrations(), Migrate), e)
}

// openAt opens the store on the file at path, which migrates it.
func openAt(t *testing.T, path string, e Engine) *sqlstore.Store {
	t.Helper()
	s, err := open(t.Context(), path, e)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStore runs the store suite. It and the suites below run side by
// side, each test on a file of its own.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openStore)
}

func TestIdempotencyKeys(t *testing.T) {
	storetest.RunIdempotency(t, func(t *testing.T) (disburse.Store, idempotency.Store) {
		s := openTest(t, Engine{})
		return s, s.Idempotency()
	})
}

// TestConcurrency, TestDelivery and TestProperties run the use cases
// on the store: races, the notification outbox, and random operations
// checked against a model.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	usecasetest.RunConcurrency(t, openStore)
}

// TestSandbox: a sandbox organisation's use cases, beside a live one
// (docs/sandbox.md).
func TestSandbox(t *testing.T) {
	t.Parallel()
	usecasetest.RunSandbox(t, openStore)
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	usecasetest.RunApprovals(t, openStore)
}

func TestDelivery(t *testing.T) {
	t.Parallel()
	usecasetest.RunDelivery(t, openSQL)
}

func TestWebhooks(t *testing.T) { usecasetest.RunWebhooks(t, openSQL) }

func TestProperties(t *testing.T) {
	t.Parallel()
	usecasetest.SetPropertyChecks(t, 30, 100)
	usecasetest.RunProperties(t, openStore)
}

func openStore(t *testing.T) disburse.Store { return openTest(t, Engine{}) }

// TestPortalStore runs the suite of the portal's port, backoffice.Tx.
func TestPortalStore(t *testing.T) {
	storetest.RunPortal(t, func(t *testing.T) storetest.PortalStore { return openTest(t, Engine{}) })
}

// TestNotificationStore runs the suite of the notification delivery's
// port, notifications.Tx.
func TestNotificationStore(t *testing.T) {
	storetest.RunNotifications(t, func(t *testing.T) storetest.NotificationStore { return openTest(t, Engine{}) })
}

// TestOperatorStore runs the suite of the operators' port, operators.Tx.
func TestOperatorStore(t *testing.T) {
	storetest.RunOperators(t, func(t *testing.T) storetest.OperatorStore { return openTest(t, Engine{}) })
}

// TestAuthStore runs the suite of the keys' and tokens' port, auth.Tx.
func TestAuthStore(t *testing.T) {
	storetest.RunAuth(t, func(t *testing.T) storetest.AuthStore { return openTest(t, Engine{}) })
}
func openSQL(t *testing.T) *sqlstore.Store { return openTest(t, Engine{}) }

// TestStoreInSmallChunks runs the suite again with bulk statements of a
// few rows, so that every bulk path is split into chunks.
func TestStoreInSmallChunks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) disburse.Store { return openTest(t, Engine{bulkRows: 3}) })
}

// TestNotificationStoreInSmallChunks is TestStoreInSmallChunks for the
// notification delivery's port.
func TestNotificationStoreInSmallChunks(t *testing.T) {
	storetest.RunNotifications(t, func(t *testing.T) storetest.NotificationStore { return openTest(t, Engine{bulkRows: 3}) })
}

// TestPortalStoreInSmallChunks is TestStoreInSmallChunks for the portal's port.
func TestPortalStoreInSmallChunks(t *testing.T) {
	storetest.RunPortal(t, func(t *testing.T) storetest.PortalStore { return openTest(t, Engine{bulkRows: 3}) })
}

// TestMigrateTwice: migrating a migrated file changes nothing.
func TestMigrateTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "disburse.db")
	for range 2 {
		if _, err := Migrate(t.Context(), path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLedgerReportsNegativeBalance reaches the audit's negative balance
// check, which the CHECK constraint otherwise keeps out of reach.
func TestLedgerReportsNegativeBalance(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Engine{})
	org := disburse.NewID()
	acct := disburse.NewID()
	for _, q := range []string{
		`PRAGMA ignore_check_constraints = ON`,
		`INSERT INTO organisations (id, name, currency, referrals_enabled, reversal_period_us, created_at) VALUES ('` + org + `', 'o', 'KES', 0, 0, 0)`,
		`INSERT INTO accounts (id, organisation_id, kind, name, currency, balance, created_at) VALUES ('` + acct + `', '` + org + `', 'PAYOUT', 'p', 'KES', -5, 0)`,
		`PRAGMA ignore_check_constraints = OFF`,
	} {
		if err := s.ExecRaw(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var problems []string
	err := s.Read(ctx, func(tx disburse.Tx) (err error) { problems, err = tx.LedgerProblems(ctx); return err })
	if err != nil {
		t.Fatal(err)
	}
	want := "account " + acct + " (PAYOUT): negative balance -0.05"
	for _, p := range problems {
		if p == want {
			return
		}
	}
	t.Errorf("no %q in:\n%s", want, strings.Join(problems, "\n"))
}

// TestErrors: constraint failures are told apart by SQLite's extended
// result codes.
func TestErrors(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Engine{})
	org := disburse.Organisation{ID: disburse.NewID(), Name: "o", Currency: "KES", CreatedAt: storeTime}
	payout := disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout, Name: "p", Currency: "KES", CreatedAt: storeTime}
	err := s.Write(ctx, func(tx disburse.Tx) error {
		if err := tx.InsertOrganisation(ctx, org); err != nil {
			return err
		}
		return tx.InsertAccount(ctx, payout)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertOrganisation(ctx, org) })
	if !errors.Is(err, sqlstore.ErrDuplicate) {
		t.Errorf("second InsertOrganisation = %v, want ErrDuplicate", err)
	}
	err = s.Write(ctx, func(tx disburse.Tx) error {
		return tx.InsertTransfers(ctx, []disburse.Transfer{{ID: disburse.NewID(), FromAccountID: payout.ID,
			ToAccountID: disburse.FundingAccountID, Amount: 1, Kind: disburse.TransferDeposit, CreatedAt: storeTime}})
	})
	if !errors.Is(err, sqlstore.ErrNegativeBalance) {
		t.Errorf("InsertTransfers past the balance = %v, want ErrNegativeBalance", err)
	}
}

var storeTime = time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)

// TestTwoStoresOnOneFile: two stores on one file (two processes, say)
// each have a writer; BEGIN IMMEDIATE and busy_timeout queue their writes
// instead of failing with SQLITE_BUSY.
func TestTwoStoresOnOneFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "disburse.db")
	var stores [2]*sqlstore.Store
	for i := range stores {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			errs <- stores[i%2].Write(ctx, func(tx disburse.Tx) error {
				_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: fmt.Sprintf("2547123456%02d", i), RegisteredAt: storeTime}})
				return err
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("write: %v", err)
		}
	}
}

// TestAuditMigration00018: the audit log's entries from before migration
// 00018 come out of it with their actors and details in the new form.
func TestAuditMigration00018(t *testing.T) {
	db, path := migratedTo(t, 17)
	if _, err := db.ExecContext(t.Context(), storetest.AuditBefore00018); err != nil {
		t.Fatal(err)
	}
	storetest.CheckAuditMigrated(t, openAt(t, path, Engine{}))
}

// migratedTo is a new database file migrated up to version, and its path.
func migratedTo(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := openDB(path, true, 1, defaultBusyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectSQLite3, db, Migrations(), goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), version); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// TestRolesMigration00020: keys and organisation users from before
// migration 00020 are admins after it, operators hold no role, and what
// the previous release writes beside the new one is an admin's too.
func TestRolesMigration00020(t *testing.T) {
	db, path := migratedTo(t, 19)
	exec := func(q string) error { _, err := db.ExecContext(t.Context(), q); return err }
	storetest.RunRolesMigration(t, exec, func() storetest.PortalStore { return openAt(t, path, Engine{}) })
}

// TestMeter checks what the use cases count for the operator's metrics.
func TestMeter(t *testing.T) {
	t.Parallel()
	usecasetest.RunMeter(t, openStore)
}
