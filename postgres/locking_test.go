package postgres_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// TestDeadlockIsRetried: two Writes lock two accounts in opposite orders,
// each waiting until the other holds its first. PostgreSQL breaks the
// deadlock by failing one of them (40P01, after deadlock_timeout, 1 s by
// default); Write runs that one again, and both succeed.
func TestDeadlockIsRetried(t *testing.T) {
	ctx := t.Context()
	s := pgtest.Open(t)
	msisdns := []string{"254712345678", "254733123456"}
	var wallets map[string]string
	err := s.Write(ctx, func(tx disburse.Tx) (err error) {
		wallets, err = tx.EnsureWallets(ctx, "KES", msisdns, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var attempts atomic.Int32
	var holdingFirst sync.WaitGroup
	holdingFirst.Add(2)
	lockBoth := func(first, second, member string) func(disburse.Tx) error {
		waited := false // a rerun must not wait for the other again
		return func(tx disburse.Tx) error {
			attempts.Add(1)
			if _, err := tx.LockAccount(ctx, first); err != nil {
				return err
			}
			if !waited {
				waited = true
				holdingFirst.Done()
				holdingFirst.Wait()
			}
			if _, err := tx.LockAccount(ctx, second); err != nil {
				return err
			}
			_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: member, RegisteredAt: now}})
			return err
		}
	}
	a, b := wallets[msisdns[0]], wallets[msisdns[1]]
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = s.Write(ctx, lockBoth(a, b, msisdns[0])) })
	wg.Go(func() { errs[1] = s.Write(ctx, lockBoth(b, a, msisdns[1])) })
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatalf("Write surfaced %v", err)
	}
	// 3: one of the two was chosen and ran again. 4: both ran PostgreSQL's
	// deadlock check at once and each gave itself up (seen under load).
	if n := attempts.Load(); n != 3 && n != 4 {
		t.Errorf("%d attempts, want 3 or 4: the deadlock broken and the loser run again", n)
	}
	for _, m := range msisdns {
		var found map[string]disburse.Member
		if err := s.Read(ctx, func(tx disburse.Tx) (err error) { found, err = tx.Members(ctx, []string{m}); return err }); err != nil || found[m].Msisdn != m {
			t.Errorf("member %s: %v, found %v", m, err, found)
		}
	}
}

// TestConcurrentMigrate: processes starting at once on an empty database
// all migrate it without error: the advisory lock lets one migrate while
// the others wait, then find nothing to do.
func TestConcurrentMigrate(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	// Back to an empty database: pgtest's come migrated.
	for _, q := range []string{"DROP SCHEMA public CASCADE", "CREATE SCHEMA public"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(ctx)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = postgres.Migrate(ctx, url) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := disburse.NewService(s).CheckLedger(ctx); err != nil {
		t.Errorf("check the migrated ledger: %v", err)
	}
}

// TestErrors: constraint failures are told apart by SQLSTATE, on both
// insert paths (INSERT ... SELECT FROM unnest and COPY).
func TestErrors(t *testing.T) {
	for name, open := range map[string]func(*testing.T) disburse.Store{"unnest": pgtest.Open, "copy": openInChunks} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s := open(t)
			org := disburse.Organisation{ID: disburse.NewID(), Name: "o", Currency: "KES", CreatedAt: now}
			payout := disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout, Name: "p", Currency: "KES", CreatedAt: now}
			batch := disburse.Batch{ID: disburse.NewID(), OrganisationID: org.ID, AccountID: payout.ID, Name: "b", Status: disburse.BatchDraft, CreatedAt: now}
			payment := disburse.Payment{ID: disburse.NewID(), BatchID: batch.ID, OrganisationID: org.ID, Msisdn: "254712345678",
				Amount: 1, Status: disburse.PaymentDraft, CreatedAt: now}
			err := s.Write(ctx, func(tx disburse.Tx) error {
				return errors.Join(tx.InsertOrganisation(ctx, org), tx.InsertAccount(ctx, payout), tx.InsertBatch(ctx, batch),
					tx.InsertPayments(ctx, []disburse.Payment{payment}))
			})
			if err != nil {
				t.Fatal(err)
			}
			for what, insert := range map[string]func(disburse.Tx) error{
				"InsertOrganisation": func(tx disburse.Tx) error { return tx.InsertOrganisation(ctx, org) },
				"InsertPayments":     func(tx disburse.Tx) error { return tx.InsertPayments(ctx, []disburse.Payment{payment}) },
			} {
				if err := s.Write(ctx, insert); !errors.Is(err, sqlstore.ErrDuplicate) {
					t.Errorf("%s again = %v, want ErrDuplicate", what, err)
				}
			}
			err = s.Write(ctx, func(tx disburse.Tx) error {
				return tx.InsertTransfers(ctx, []disburse.Transfer{{ID: disburse.NewID(), FromAccountID: payout.ID,
					ToAccountID: disburse.FundingAccountID, Amount: 1, Kind: disburse.TransferDeposit, CreatedAt: now}})
			})
			if !errors.Is(err, sqlstore.ErrNegativeBalance) {
				t.Errorf("InsertTransfers past the balance = %v, want ErrNegativeBalance", err)
			}
		})
	}
}

// TestLockedAccountTakesNewBatches: while a transaction holds a payout
// account's lock (as a submit does from its start to its commit), a new
// batch of that account is created at once: the lock is FOR NO KEY UPDATE,
// which the foreign-key check of batches.account_id does not wait for.
func TestLockedAccountTakesNewBatches(t *testing.T) {
	ctx := t.Context()
	svc := disburse.NewService(pgtest.Open(t))
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Busy"})
	if err != nil {
		t.Fatal(err)
	}
	float := accounts[0].ID
	locked, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- svc.Store.Write(ctx, func(tx disburse.Tx) error {
			if _, err := tx.LockAccount(ctx, float); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	created := make(chan error, 1)
	go func() {
		_, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "meanwhile", AccountID: float})
		created <- err
	}()
	select {
	case err := <-created:
		if err != nil {
			t.Errorf("CreateBatch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("CreateBatch waited for the account's lock")
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}

// TestApplyBalancesLocksInIDOrder: ApplyBalances takes its accounts' row
// locks in ascending id order within a kind (docs/ledger.md, "Lock
// order"), whatever order the plan of its UPDATE would visit them in.
// While another transaction holds the higher wallet, it holds the lower
// one and waits: two transactions that share accounts then wait in line
// rather than each on the other.
func TestApplyBalancesLocksInIDOrder(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msisdns := []string{"254712345678", "254733123456"}
	var wallets map[string]string
	if err := s.Write(ctx, func(tx disburse.Tx) (err error) {
		wallets, err = tx.EnsureWallets(ctx, "KES", msisdns, now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	low, high := min(wallets[msisdns[0]], wallets[msisdns[1]]), max(wallets[msisdns[0]], wallets[msisdns[1]])
	// An update writes the lower account's row anew, after the higher's in
	// the table: a scan of the table now meets the higher first.
	if err := s.Write(ctx, func(tx disburse.Tx) error {
		return tx.ApplyBalances(ctx, disburse.BalanceChanges{low: 5})
	}); err != nil {
		t.Fatal(err)
	}
	if !locksBeforeWaiting(t, s, url, high, disburse.BalanceChanges{low: 1, high: 1}, low) {
		t.Error("ApplyBalances waited for the higher wallet without holding the lower: it locks out of id order")
	}
}

// TestApplyBalancesLocksPayoutFirst: payout accounts come before holding
// accounts in the lock order, whatever their ids, as a submit and a
// deposit lock theirs first: with an organisation's holding account held
// elsewhere, ApplyBalances holds the payout account while it waits.
func TestApplyBalancesLocksPayoutFirst(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	org, _, err := organisations.Create(ctx, disburse.NewService(s), organisations.NewOrganisation{Name: "Lock Order Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	holding := org.HoldingAccountID
	// A payout account made after the holding account: its id is higher.
	payout := disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout,
		Name: "Second", Currency: org.Currency, Balance: 0, CreatedAt: now}
	if holding == "" || payout.ID < holding {
		t.Fatalf("holding account %q, new payout account %s: want the holding's id lower", holding, payout.ID)
	}
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertAccount(ctx, payout) }); err != nil {
		t.Fatal(err)
	}
	if !locksBeforeWaiting(t, s, url, holding, disburse.BalanceChanges{holding: 1, payout.ID: 1}, payout.ID) {
		t.Error("ApplyBalances waited for the holding account without holding the payout account")
	}
}

// locksBeforeWaiting holds account held in one transaction, runs
// ApplyBalances(changes) in another, which waits for it, and reports
// whether that one holds account probe meanwhile.
func locksBeforeWaiting(t *testing.T, s *sqlstore.Store, url, held string, changes disburse.BalanceChanges, probe string) bool {
	t.Helper()
	ctx := t.Context()
	locked, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var holder, applier error
	wg.Go(func() {
		holder = s.Write(ctx, func(tx disburse.Tx) error {
			if _, err := tx.LockAccount(ctx, held); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	})
	<-locked
	wg.Go(func() {
		applier = s.Write(ctx, func(tx disburse.Tx) error { return tx.ApplyBalances(ctx, changes) })
	})
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	probed := false
	for deadline := time.Now().Add(5 * time.Second); !probed && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, err := conn.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE NOWAIT`, probe)
		probed = err != nil
	}
	close(release)
	wg.Wait()
	if err := errors.Join(holder, applier); err != nil {
		t.Fatal(err)
	}
	return probed
}
