package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/organisations"
)

// TestFaults drives submits, registrations and cancels through a proxy
// while their connections fail: backends terminated by the server, every
// connection broken at a random moment, or a connection cut right after
// COMMIT went through (the server commits; the client never hears). After
// each round, read past the proxy: the ledger check passes, deposits equal
// float + held + wallets, and no use case answered success for work that
// is not there.
func TestFaults(t *testing.T) {
	testenv.SkipUnlessLong(t) // rounds of faults
	ctx := t.Context()
	p, direct, faulty, steady := openBehindProxy(t)
	svc, check := disburse.NewService(faulty), disburse.NewService(steady)
	svc.PageSize = 500 // many pages, so that a fault lands inside the submit

	org, accounts, err := organisations.Create(ctx, check, organisations.NewOrganisation{Name: "Faults", ReferralsEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	const deposited = disburse.Money(100_000_000 * 100)
	if _, err := check.Deposit(ctx, accounts[0].ID, deposited.String(), "float"); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)

	var payees []string
	next := 0
	newBatch := func(n int) string {
		t.Helper()
		b, err := check.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "faults"})
		if err != nil {
			t.Fatal(err)
		}
		in := make([]disburse.PaymentInput, n)
		for i := range in {
			msisdn := fmt.Sprintf("2547%08d", 10_000_000+next)
			next++
			payees = append(payees, msisdn)
			in[i] = disburse.PaymentInput{Msisdn: msisdn, Amount: "10.00"}
			if i%7 == 0 {
				in[i].ReferralAmount, in[i].ReferralMsisdn = "1.50", payees[rng.IntN(len(payees))]
			}
		}
		clear := false
		if _, _, err := check.AddPayments(ctx, org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
			t.Fatal(err)
		}
		return b.ID
	}

	faults := []struct {
		name   string
		inject func()
	}{
		{"backends terminated", func() { terminateBackends(t, direct) }},
		{"connections broken", p.breakAll},
		{"cut after COMMIT", p.cutAtCommit},
	}
	const rounds = 9
	var previous string
	var tried []string // the payees registrations were sent for: only members have wallets
	for round := range rounds {
		fault := faults[round%len(faults)]
		batch := newBatch(3000)
		var submitErr, cancelErr error
		registered := make([]error, 4)
		toRegister := make([]string, len(registered))
		for i := range toRegister {
			toRegister[i] = payees[rng.IntN(len(payees))]
		}
		var wg sync.WaitGroup
		wg.Go(func() { _, submitErr = svc.Submit(ctx, org.ID, batch) })
		for i, m := range toRegister {
			wg.Go(func() {
				_, _, registered[i] = svc.RegisterMember(ctx, disburse.Member{Msisdn: m, AppInstalled: i%2 == 0})
			})
		}
		if previous != "" {
			wg.Go(func() { _, cancelErr = svc.Cancel(ctx, org.ID, previous) })
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		fault.inject()
		wg.Wait()

		// Success means the work is there.
		b, err := check.Batch(ctx, org.ID, batch)
		if err != nil {
			t.Fatal(err)
		}
		if submitErr == nil && b.Status == disburse.BatchDraft {
			t.Errorf("round %d (%s): submit answered success, batch still DRAFT", round, fault.name)
		}
		for i, m := range toRegister {
			if registered[i] != nil {
				continue
			}
			if st, err := check.Statement(ctx, m); err != nil || !st.IsMember {
				t.Errorf("round %d (%s): registration of %s answered success, no member (%v)", round, fault.name, m, err)
			}
		}
		if previous != "" && cancelErr == nil {
			if pb, err := check.Batch(ctx, org.ID, previous); err != nil || pb.Status != disburse.BatchCancelled {
				t.Errorf("round %d (%s): cancel answered success, batch %s (%v)", round, fault.name, pb.Status, err)
			}
		}
		tried = append(tried, toRegister...)
		checkConserved(t, check, org.ID, deposited, tried)
		t.Logf("round %d (%s): submit %v, cancel %v, registrations %v", round, fault.name, submitErr, cancelErr, registered)
		previous = batch
	}
	t.Logf("%d fault rounds, ledger sound and money conserved after each", rounds)
}

// checkConserved requires a sound ledger and every unit deposited to be in
// the organisation's float, held for it, or in the wallet of one of
// members (every payee a registration may have made a member).
func checkConserved(t *testing.T, svc *disburse.Service, orgID string, deposited disburse.Money, members []string) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	r, err := svc.CheckLedger(ctx)
	if err != nil || !r.OK {
		t.Fatalf("ledger check: %v %v", err, r.Problems)
	}
	accounts, err := organisations.Accounts(ctx, svc, orgID)
	if err != nil {
		t.Fatal(err)
	}
	var total disburse.Money
	for _, a := range accounts {
		total += a.Balance + a.HeldBalance
	}
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m] {
			continue
		}
		seen[m] = true
		st, err := svc.Statement(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range st.Wallets {
			total += w.Balance
		}
	}
	if total != deposited {
		t.Fatalf("float + held + wallets = %s, deposited %s", total, deposited)
	}
}
