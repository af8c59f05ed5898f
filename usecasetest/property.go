package usecasetest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/organisations"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// payees are the msisdns the property test pays; few, so that the same
// person is paid by several batches and organisations.
var payees = []string{"254712345678", "254733123456", "447911123456", "14155552671", "255754123456"}

// RunProperties drives random sequences of operations over several
// organisations through the real Service on a store from open, and after
// every step checks the ledger audit and compares balances, statuses and
// summaries with the in-memory model.
func RunProperties(t *testing.T, open func(t *testing.T) disburse.Store) {
	rapid.Check(t, func(rt *rapid.T) {
		h := newHarness(t, rt, open(t))
		rt.Repeat(map[string]func(*rapid.T){
			"":            h.verify,
			"createBatch": h.createBatch,
			"addPayments": h.addPayments,
			"delete":      h.deletePayment,
			"submit":      h.submit,
			"deposit":     h.deposit,
			"register":    h.register,
			"advance":     h.advance,
			"reverse":     h.reverse,
			"cancel":      h.cancel,
		})
	})
}

// SetPropertyChecks sets how many random runs RunProperties makes: short,
// or long in a run with the long suites (internal/testenv), unless
// -rapid.checks or RAPID_CHECKS says otherwise.
func SetPropertyChecks(t *testing.T, short, long int) {
	t.Helper()
	if flagSet("rapid.checks") || os.Getenv("RAPID_CHECKS") != "" {
		return
	}
	if err := flag.Set("rapid.checks", strconv.Itoa(testenv.Pick(short, long))); err != nil {
		t.Fatal(err)
	}
}

// flagSet reports whether the command line set the flag.
func flagSet(name string) (set bool) {
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

type harness struct {
	ctx context.Context
	svc *disburse.Service
	m   *model
}

func newHarness(t *testing.T, rt *rapid.T, store disburse.Store) *harness {
	ctx := context.Background()
	m := &model{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), members: map[string]bool{}, wallets: map[string]disburse.Money{}}
	svc := disburse.NewService(store)
	svc.Clock = func() time.Time { return m.now }
	// Small pages, so that a submit moves its batch over several.
	svc.PageSize = rapid.IntRange(1, 4).Draw(rt, "pageSize")
	h := &harness{ctx: ctx, svc: svc, m: m}
	for i := range rapid.IntRange(1, 3).Draw(rt, "orgs") {
		referrals := rapid.Bool().Draw(rt, "referrals")
		org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: fmt.Sprintf("Org %d", i), ReferralsEnabled: referrals})
		if err != nil {
			rt.Fatalf("create organisation: %v", err)
		}
		seconds := int64(rapid.IntRange(3600, 3*86400).Draw(rt, "reversalSeconds"))
		if _, _, err := organisations.UpdateSettings(ctx, svc, org.ID, organisations.Settings{ReversalPeriodSeconds: &seconds}); err != nil {
			rt.Fatalf("settings: %v", err)
		}
		m.orgs = append(m.orgs, &modelOrg{id: org.ID, account: accounts[0].ID, referrals: referrals, period: time.Duration(seconds) * time.Second})
	}
	return h
}

func (h *harness) expect(rt *rapid.T, what string, err error, want disburse.Code) {
	got := disburse.Code("")
	if err != nil {
		got = disburse.ErrorCode(err)
	}
	if got != want {
		rt.Fatalf("%s: got error %v (code %q), want code %q", what, err, got, want)
	}
}

func (h *harness) org(rt *rapid.T) *modelOrg { return rapid.SampledFrom(h.m.orgs).Draw(rt, "org") }

func (h *harness) batch(rt *rapid.T) *modelBatch {
	if len(h.m.batches) == 0 {
		rt.Skip("no batch yet")
	}
	return rapid.SampledFrom(h.m.batches).Draw(rt, "batch")
}

func (h *harness) createBatch(rt *rapid.T) {
	o := h.org(rt)
	b, err := h.svc.CreateBatch(h.ctx, o.id, disburse.BatchInput{Name: "batch"})
	h.expect(rt, "create batch", err, "")
	h.m.batches = append(h.m.batches, &modelBatch{id: b.ID, org: o, status: disburse.BatchDraft})
}

func (h *harness) addPayments(rt *rapid.T) {
	b := h.batch(rt)
	clear := rapid.Bool().Draw(rt, "clearExisting")
	n := rapid.IntRange(1, 4).Draw(rt, "n")
	in := make([]disburse.PaymentInput, n)
	for i := range in {
		in[i] = disburse.PaymentInput{
			Msisdn: rapid.SampledFrom(payees).Draw(rt, "msisdn"),
			Amount: disburse.Number(fmt.Sprintf("%d.%02d", rapid.IntRange(1, 500).Draw(rt, "units"), rapid.IntRange(0, 99).Draw(rt, "cents"))),
		}
		if rapid.IntRange(0, 2).Draw(rt, "referral") == 0 {
			in[i].ReferralMsisdn = rapid.SampledFrom(payees).Draw(rt, "referralMsisdn")
			in[i].ReferralAmount = disburse.Number(fmt.Sprintf("%d", rapid.IntRange(1, 50).Draw(rt, "referralUnits")))
		}
	}
	_, added, err := h.svc.AddPayments(h.ctx, b.org.id, b.id, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in})
	if b.status != disburse.BatchDraft {
		h.expect(rt, "add payments", err, disburse.CodeInvalidState)
		return
	}
	h.expect(rt, "add payments", err, "")
	if clear {
		for _, p := range b.live() {
			p.eachLeg(func(l *modelLeg) { l.status = disburse.PaymentDeleted })
		}
	}
	for i, p := range added {
		mp := &modelPayment{id: p.ID}
		amount, _ := disburse.ParseMoney(string(in[i].Amount))
		mp.legs[0] = modelLeg{msisdn: in[i].Msisdn, amount: amount, status: disburse.PaymentDraft}
		if b.org.referrals && in[i].ReferralAmount != "" {
			ref, _ := disburse.ParseMoney(string(in[i].ReferralAmount))
			mp.legs[1] = modelLeg{msisdn: in[i].ReferralMsisdn, amount: ref, status: disburse.PaymentDraft}
		}
		b.payments = append(b.payments, mp)
	}
}

func (h *harness) deletePayment(rt *rapid.T) {
	b := h.batch(rt)
	if len(b.payments) == 0 {
		rt.Skip("no payment")
	}
	p := rapid.SampledFrom(b.payments).Draw(rt, "payment")
	_, err := h.svc.DeletePayment(h.ctx, b.org.id, p.id)
	if b.status != disburse.BatchDraft || p.legs[0].status != disburse.PaymentDraft {
		h.expect(rt, "delete payment", err, disburse.CodeInvalidState)
		return
	}
	h.expect(rt, "delete payment", err, "")
	p.eachLeg(func(l *modelLeg) { l.status = disburse.PaymentDeleted })
}

func (h *harness) submit(rt *rapid.T) {
	b := h.batch(rt)
	_, err := h.svc.Submit(h.ctx, b.org.id, b.id)
	h.expect(rt, "submit", err, h.m.submit(b))
}

func (h *harness) deposit(rt *rapid.T) {
	o := h.org(rt)
	units := rapid.IntRange(1, 3000).Draw(rt, "depositUnits")
	_, err := h.svc.Deposit(h.ctx, o.account, fmt.Sprint(units), "")
	h.expect(rt, "deposit", err, "")
	o.float += disburse.Money(units * 100)
}

func (h *harness) register(rt *rapid.T) {
	msisdn := rapid.SampledFrom(payees).Draw(rt, "register")
	app := rapid.Bool().Draw(rt, "appInstalled")
	_, _, err := h.svc.RegisterMember(h.ctx, disburse.Member{Msisdn: msisdn, AppInstalled: app})
	h.expect(rt, "register", err, "")
	h.m.register(msisdn)
}

func (h *harness) advance(rt *rapid.T) {
	h.m.now = h.m.now.Add(time.Duration(rapid.IntRange(1, 48).Draw(rt, "hours")) * time.Hour)
}

func (h *harness) reverse(rt *rapid.T) {
	_, err := h.svc.ReverseDue(h.ctx)
	h.expect(rt, "reverse", err, "")
	h.m.reverse()
}

func (h *harness) cancel(rt *rapid.T) {
	b := h.batch(rt)
	_, err := h.svc.Cancel(h.ctx, b.org.id, b.id)
	h.expect(rt, "cancel", err, h.m.cancel(b))
}

// verify compares everything the service shows with the model.
func (h *harness) verify(rt *rapid.T) {
	report, err := h.svc.CheckLedger(h.ctx)
	if err != nil || !report.OK {
		rt.Fatalf("ledger check: %v %v", err, report.Problems)
	}
	for _, o := range h.m.orgs {
		accounts, err := organisations.Accounts(h.ctx, h.svc, o.id)
		if err != nil {
			rt.Fatalf("accounts: %v", err)
		}
		if a := accounts[0]; a.Balance != o.float || a.HeldBalance != o.held {
			rt.Fatalf("org %s: float %s held %s, model float %s held %s", o.id, a.Balance, a.HeldBalance, o.float, o.held)
		}
	}
	for _, b := range h.m.batches {
		got, err := h.svc.Batch(h.ctx, b.org.id, b.id)
		if err != nil {
			rt.Fatalf("batch: %v", err)
		}
		if got.Status != b.status {
			rt.Fatalf("batch %s: status %s, model %s", b.id, got.Status, b.status)
		}
		if diff := cmp.Diff(b.summary(), got.Summary); diff != "" {
			rt.Fatalf("batch %s summary (-model +service):\n%s", b.id, diff)
		}
		payments, err := lists.Payments(h.ctx, h.svc, b.org.id, b.id, disburse.ListQuery{})
		if err != nil {
			rt.Fatalf("payments: %v", err)
		}
		var gotStates, wantStates []string
		for _, p := range payments {
			gotStates = append(gotStates, p.ID+" "+string(p.Status)+" "+string(p.ReferralStatus))
		}
		for _, p := range b.payments {
			wantStates = append(wantStates, p.id+" "+string(p.legs[0].status)+" "+string(p.legs[1].status))
		}
		if diff := cmp.Diff(wantStates, gotStates); diff != "" {
			rt.Fatalf("batch %s payment states (-model +service):\n%s", b.id, diff)
		}
	}
	for _, msisdn := range payees {
		st, err := h.svc.Statement(h.ctx, msisdn)
		if err != nil {
			rt.Fatalf("statement: %v", err)
		}
		var balance, entries disburse.Money
		for _, w := range st.Wallets {
			balance += w.Balance
		}
		for _, e := range st.Entries {
			entries += e.Amount
		}
		if balance != h.m.wallets[msisdn] || entries != balance {
			rt.Fatalf("%s: wallet %s, entries %s, model %s", msisdn, balance, entries, h.m.wallets[msisdn])
		}
	}
}
