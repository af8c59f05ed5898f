package csvpayments

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// TestNeutralise: a cell a spreadsheet would read as a formula (OWASP,
// "CSV Injection") gets a single quote in front; any other is kept.
func TestNeutralise(t *testing.T) {
	for _, tc := range []struct{ cell, want string }{
		{"=1+2", "'=1+2"},
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+254712345678", "'+254712345678"},
		{"-5", "'-5"},
		{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"\tcmd", "'\tcmd"},
		{"\rcmd", "'\rcmd"},
		{"=", "'="},
		{"", ""},
		{"Ann", "Ann"},
		{"a=b", "a=b"},
		{"150.00", "150.00"},
		{" =1", " =1"},
		{"'=1", "'=1"},
		{"Ünïcödé", "Ünïcödé"},
	} {
		if got := neutralise(tc.cell); got != tc.want {
			t.Errorf("neutralise(%q) = %q, want %q", tc.cell, got, tc.want)
		}
	}
}

// results are a settled member's payment with a settled referral, and a
// draft with nothing optional whose names would be formulas.
func results() []disburse.Payment {
	settled := time.Date(2026, 11, 22, 10, 15, 30, 123456000, time.FixedZone("EAT", 3*60*60))
	return []disburse.Payment{{
		ID: "0190f5c2-0000-7000-8000-000000000001", Msisdn: "254712345678", Amount: 150_00,
		Firstname: "Zoë", Lastname: `O"Neil, Jr`, ExternalID: "inv-1", Status: disburse.PaymentSettled, IsMember: true,
		SettledAt: settled, ReferralAmount: 5_05, ReferralMsisdn: "254722000111", ReferralStatus: disburse.PaymentPending,
	}, {
		ID: "0190f5c2-0000-7000-8000-000000000002", Msisdn: "254733000222", Amount: 1,
		Firstname: "=cmd", Lastname: "-1", ExternalID: "@x", Status: disburse.PaymentDraft,
	}}
}

const resultsFile = "msisdn,amount,firstname,lastname,externalId,statusCode,isMember,settledAt,referralAmount,referralMsisdn,referralStatusCode,id\n" +
	`254712345678,150.00,Zoë,"O""Neil, Jr",inv-1,SETTLED,true,2026-11-22T07:15:30.1234560,5.05,254722000111,PENDING,0190f5c2-0000-7000-8000-000000000001` + "\n" +
	"254733000222,0.01,'=cmd,'-1,'@x,DRAFT,false,,,,,0190f5c2-0000-7000-8000-000000000002\n"

// TestResultWriter: the header, then each payment's cells as the API's
// JSON writes them (the date-time in UTC), quoted where CSV needs it.
func TestResultWriter(t *testing.T) {
	var b strings.Builder
	w := NewResultWriter(&b, 4096)
	if err := w.WriteHeader(); err != nil {
		t.Fatal(err)
	}
	for _, p := range results() {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 0 {
		t.Errorf("%d bytes written before Flush", b.Len())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(resultsFile, b.String()); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

// TestServeResults: the file with its headers, page after page; the
// header line alone for no payments; a failure before the first page is
// the caller's to answer, one after it cuts the file short.
func TestServeResults(t *testing.T) {
	boom, missing := errors.New("boom"), disburse.NotFound("batch")
	for _, tc := range []struct {
		name    string
		pages   Pages
		wantErr error
		body    string
	}{
		{"two pages", func(visit func([]disburse.Payment) error) error {
			ps := results()
			return errors.Join(visit(ps[:1]), visit(ps[1:]))
		}, nil, resultsFile},
		{"no payments", func(func([]disburse.Payment) error) error { return nil }, nil, strings.SplitAfter(resultsFile, "\n")[0]},
		{"not found", func(func([]disburse.Payment) error) error { return missing }, missing, ""},
		{"a later page fails", func(visit func([]disburse.Payment) error) error {
			return errors.Join(visit(results()[:1]), boom)
		}, ErrCutShort, strings.Join(strings.SplitAfter(resultsFile, "\n")[:2], "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			err := ServeResults(rec, httptest.NewRequest("GET", "/batches/x/payments.csv", nil), "payments-x.csv", tc.pages)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got := rec.Body.String(); got != tc.body {
				t.Errorf("body (-want +got):\n%s", cmp.Diff(tc.body, got))
			}
			if tc.body == "" {
				return
			}
			want := http.Header{"Content-Type": {"text/csv; charset=utf-8"}, "Cache-Control": {"no-store"},
				"Content-Disposition": {"attachment; filename=payments-x.csv"}}
			if diff := cmp.Diff(want, rec.Header()); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
