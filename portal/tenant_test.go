package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/approvals"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
)

// TestEveryRouteAsWrongOrganisation walks every route of the portal as a
// user of another organisation: every route that names something of
// Acme's answers 404, every operator route 404, and no list shows Acme's
// rows. Nothing of Acme's changes.
func TestEveryRouteAsWrongOrganisation(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		key, _, err := w.keys.CreateAPIKey(ctx, w.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "Acme secret batch"})
		if err != nil {
			t.Fatal(err)
		}
		clearExisting := false
		_, added, err := w.svc.AddPayments(ctx, w.org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting,
			Payments: []disburse.PaymentInput{{Msisdn: "254712345678", Amount: "10"}}})
		if err != nil {
			t.Fatal(err)
		}
		// A submitted payment too: its page lists its legs' transfers.
		paid, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "Acme paid batch"})
		if err != nil {
			t.Fatal(err)
		}
		_, paidPayments, err := w.svc.AddPayments(ctx, w.org.ID, paid.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting,
			Payments: []disburse.PaymentInput{{Msisdn: "447911123456", Amount: "7"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "100", "float"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Submit(ctx, w.org.ID, paid.ID); err != nil {
			t.Fatal(err)
		}
		// A batch waiting for an approval: its page, and the decisions.
		zero := &organisations.ThresholdSetting{Amount: "0"}
		if _, _, err := organisations.UpdateSettings(ctx, w.svc, w.org.ID, organisations.Settings{ApprovalThreshold: zero}); err != nil {
			t.Fatal(err)
		}
		held, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "Acme held batch"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.AddPayments(ctx, w.org.ID, held.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting,
			Payments: []disburse.PaymentInput{{Msisdn: "447911123456", Amount: "1"}}}); err != nil {
			t.Fatal(err)
		}
		sub, err := w.svc.SubmitWatched(ctx, w.org.ID, held.ID, nil)
		if err != nil || sub.Approval == nil {
			t.Fatalf("submit for approval: %+v, %v", sub, err)
		}
		upload, err := w.office.StartUpload(ctx, backoffice.Upload{ID: disburse.NewID(), OrganisationID: w.org.ID, BatchID: b.ID, Phase: backoffice.UploadChecking})
		if err != nil {
			t.Fatal(err)
		}
		_, admin, err := w.office.SignIn(ctx, userEmail, w.userPassword)
		if err != nil {
			t.Fatal(err)
		}
		inv, _, err := w.office.Invite(ctx, admin, "new@acme.example", auth.RolesOf(auth.RoleViewer))
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string][]string{
			"/portal/organisations/": {w.org.ID}, "/portal/keys/": {key.ID}, "/portal/accounts/": {w.orgAccount.ID},
			"/portal/batches/": {b.ID, paid.ID, held.ID}, "/portal/payments/": {added[0].ID, paidPayments[0].ID}, "/portal/uploads/": {upload.ID},
			"/portal/users/": {admin.ID}, "/portal/invitations/": {inv.ID}, "/portal/approvals/": {sub.Approval.ID},
		}
		teamBefore, _, err := w.office.Team(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		intruder := w.signedIn(t, otherEmail, w.otherPassword)
		walked, skipped := 0, 0
		for _, rt := range portal.Routes() {
			if rt.Public || rt.Path == "/portal/signout" {
				skipped++
				continue
			}
			paths := []string{strings.ReplaceAll(rt.Path, "{$}", "")}
			if strings.Contains(rt.Path, "{id}") {
				paths = nil
				for prefix, list := range ids {
					if strings.HasPrefix(rt.Path, prefix) {
						for _, id := range list {
							paths = append(paths, strings.Replace(rt.Path, "{id}", id, 1))
						}
					}
				}
				if len(paths) == 0 {
					t.Fatalf("route %s %s: the test has no id of Acme's for it", rt.Method, rt.Path)
				}
			}
			walked++
			for _, path := range paths {
				var res answer
				form := url.Values{"name": {"x"}, "amount": {"1"}, "reversalPeriodDays": {"1"}, "msisdn": {"254712345678"},
					"roles": {"viewer"}, "email": {"new@acme.example"}, "approvalThreshold": {""}}
				if rt.Method == "GET" {
					res = intruder.get(path + "?organisation=" + w.org.ID)
				} else {
					res = intruder.post(path, form)
				}
				switch {
				case strings.Contains(rt.Path, "{id}") || rt.OperatorOnly:
					if res.status != http.StatusNotFound {
						t.Errorf("%s %s as another organisation: %d, want 404", rt.Method, path, res.status)
					}
				default:
					for _, secret := range []string{"Acme", w.org.ID, b.ID, paid.ID, held.ID, sub.Approval.ID} {
						if strings.Contains(res.body, secret) {
							t.Errorf("%s %s as another organisation shows %q", rt.Method, path, secret)
						}
					}
				}
			}
		}
		if skipped > 5 { // the four public routes and signing out
			t.Errorf("walked %d routes of %d", walked, len(portal.Routes()))
		}
		after, err := w.svc.Batch(ctx, w.org.ID, b.ID)
		if err != nil || after.Status != disburse.BatchDraft || after.Summary.PaymentsCount != 1 {
			t.Errorf("Acme's batch changed: %+v, %v", after.Summary, err)
		}
		if a, err := approvals.Get(ctx, w.svc.Store, w.org.ID, sub.Approval.ID); err != nil || a.Status != disburse.ApprovalPending {
			t.Errorf("Acme's approval changed: %+v, %v", a, err)
		}
		if org, _, err := organisations.Get(ctx, w.svc, w.org.ID); err != nil || org.ApprovalThreshold == nil {
			t.Errorf("Acme's approval threshold changed: %v, %v", org.ApprovalThreshold, err)
		}
		keys, _ := w.office.APIKeys(ctx, w.org.ID)
		if len(keys) != 1 || !keys[0].RevokedAt.IsZero() {
			t.Errorf("Acme's key changed: %+v", keys)
		}
		team, invitations, err := w.office.Team(ctx, admin)
		if err != nil || !cmp.Equal(team, teamBefore) || len(invitations) != 1 || invitations[0].ID != inv.ID {
			t.Errorf("Acme's users or invitations changed: %+v %+v %v", team, invitations, err)
		}
	})
}
