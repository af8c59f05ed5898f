package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// errRollback ends a Write on purpose.
var errRollback = errors.New("roll back")

func testWriteRollsBack(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	err := s.Write(ctx, func(tx disburse.Tx) error {
		if _, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}}); err != nil {
			return err
		}
		return fmt.Errorf("use case: %w", errRollback)
	})
	if !errors.Is(err, errRollback) {
		t.Errorf("Write = %v, want fn's error", err)
	}
	notFound(t, s, "member of a rolled back Write", func(tx disburse.Tx) error { _, err := member(tx, msisdnKE); return err })
	// The store still works after the rollback.
	write(t, s, func(tx disburse.Tx) error {
		_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}})
		return err
	})
}

// testWriteSurvivesPanic: a panic inside fn reaches the caller, and the
// transaction is rolled back rather than left open: the store still takes
// writes (an open transaction would hold SQLite's write lock, and its
// connection, for ever).
func testWriteSurvivesPanic(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Write swallowed the panic of its fn")
			}
		}()
		_ = s.Write(ctx, func(tx disburse.Tx) error {
			if _, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}}); err != nil {
				return err
			}
			panic("use case bug")
		})
	}()
	done := make(chan error, 1)
	go func() {
		done <- s.Write(ctx, func(tx disburse.Tx) error {
			_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnUK, RegisteredAt: t0}})
			return err
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Write after a panic: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Write after a panic did not finish: the panicked transaction is still open")
	}
	notFound(t, s, "member of a panicked Write", func(tx disburse.Tx) error { _, err := member(tx, msisdnKE); return err })
}

func testReadIsReadOnly(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	err := s.Read(ctx, func(tx disburse.Tx) error {
		_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}})
		return err
	})
	if err == nil {
		t.Error("Read let a write through")
	}
	notFound(t, s, "member written in a Read", func(tx disburse.Tx) error { _, err := member(tx, msisdnKE); return err })
}

// testConcurrentWrites: Writes racing on the same rows all succeed (none
// fails with "database is locked"), and none loses another's update.
func testConcurrentWrites(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			errs <- s.Write(ctx, func(tx disburse.Tx) error {
				if _, err := tx.LockAccount(ctx, w.payout.ID); err != nil {
					return err
				}
				return tx.InsertTransfers(ctx, []disburse.Transfer{{
					ID: disburse.NewID(), FromAccountID: disburse.FundingAccountID, ToAccountID: w.payout.ID,
					Amount: 1_00, Kind: disburse.TransferDeposit, Reference: fmt.Sprint(i), CreatedAt: at(time.Duration(i)),
				}})
			})
		})
		wg.Go(func() {
			errs <- s.Read(ctx, func(tx disburse.Tx) error {
				_, err := tx.PayoutAccounts(ctx, w.org.ID)
				return err
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent transaction: %v", err)
		}
	}
	if got := balance(t, s, w.payout.ID); got != n*1_00 {
		t.Errorf("balance after %d concurrent deposits = %s", n, got)
	}
}

func testPing(t *testing.T, s disburse.Store) {
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
