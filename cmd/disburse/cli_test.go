package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/internal/testserver"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// The organisation's commands against the real API on 127.0.0.1, on each store.

func eachCLIStore(t *testing.T, test func(t *testing.T, srv *testserver.Server)) {
	open := map[string]func(t *testing.T) *sqlstore.Store{
		"sqlite": func(t *testing.T) *sqlstore.Store {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "cli.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": pgtest.OpenSQL,
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			srv, err := testserver.Start(t.Context(), open[name](t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			test(t, srv)
		})
	}
}

// cli runs one command and returns its output, its errors and exit code.
func cli(t *testing.T, srv *testserver.Server, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--api-url", srv.URL, "--api-key", srv.APIKey)
	var err error
	switch args[0] {
	case "batches":
		err = batches(context.Background(), args[1:], &out, &errOut)
	case "accounts":
		err = accounts(context.Background(), args[1:], &out, &errOut)
	}
	if err != nil {
		fmt.Fprintln(&errOut, describe(err))
		code = asExit(err)
	}
	return out.String(), errOut.String(), code
}

// payoutsCSV writes n rows, columns in an unusual order; every third row
// pays the registered member, the others non-members.
func payoutsCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("amount,firstname,msisdn\n")
	for i := range n {
		msisdn := testserver.Member
		if i%3 != 0 {
			msisdn = fmt.Sprintf("2547%08d", 10000000+i)
		}
		fmt.Fprintf(&b, "%d.%02d,Payee %d,%s\n", 1+i%50, i%100, i, msisdn)
	}
	path := filepath.Join(t.TempDir(), "payouts.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type cliBatch struct {
	ID         string `json:"id"`
	StatusCode string `json:"statusCode"`
	ExternalID string `json:"externalId"`
	Summary    struct {
		PaymentsCount  int         `json:"paymentsCount"`
		PaymentsAmount json.Number `json:"paymentsAmount"`
		SettledCount   int         `json:"settledCount"`
		PendingCount   int         `json:"pendingCount"`
	} `json:"summary"`
}

func listBatches(t *testing.T, srv *testserver.Server) []cliBatch {
	t.Helper()
	out, errOut, code := cli(t, srv, "batches", "list", "--json")
	if code != 0 {
		t.Fatalf("list: %d %s", code, errOut)
	}
	var page struct { // the CLI pins version 2026-12-01: a page (docs/versioning.md)
		Data       []cliBatch `json:"data"`
		HasMore    bool       `json:"hasMore"`
		NextCursor *string    `json:"nextCursor"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil || page.Data == nil {
		t.Fatalf("list --json: %v: %s", err, out)
	}
	return page.Data
}

// TestCLIUploadResumesAndSubmits: an upload cut off midway (a proxy that
// fails the third request) leaves the first requests' rows; the same
// command again sends only the rest, and --submit pays each row once.
func TestCLIUploadResumesAndSubmits(t *testing.T) {
	// A file of 2,500 rows in requests of 250 proves the resume; the
	// long run sends one of 100,000, the most a batch holds.
	rows := testenv.Pick(2500, 100000)
	if testing.Short() {
		rows = 2500
	}
	eachCLIStore(t, func(t *testing.T, srv *testserver.Server) {
		file := payoutsCSV(t, rows)
		size := fmt.Sprint(rows / 10)

		// Through a proxy that answers the third add with a 502.
		target, _ := url.Parse(srv.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		var adds atomic.Int32
		flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/payments") && adds.Add(1) == 3 {
				http.Error(w, "bad gateway", http.StatusBadGateway)
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		defer flaky.Close()
		cut := *srv
		cut.URL = flaky.URL
		_, errOut, code := cli(t, &cut, "batches", "upload", "--file", file, "--name", "November", "--request-size", size)
		if code != exitService {
			t.Fatalf("cut-off upload: exit %d, want %d: %s", code, exitService, errOut)
		}
		bs := listBatches(t, srv)
		if len(bs) != 1 || bs[0].Summary.PaymentsCount != 2*rows/10 || bs[0].StatusCode != "DRAFT" {
			t.Fatalf("after the cut: %+v", bs)
		}

		out, errOut, code := cli(t, srv, "batches", "upload", "--file", file, "--name", "November", "--request-size", size, "--submit", "--json")
		if code != 0 {
			t.Fatalf("resumed upload: exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, fmt.Sprintf("holds %d of the file's %d payments", 2*rows/10, rows)) ||
			!strings.Contains(errOut, fmt.Sprintf("uploaded %d/%d payments", rows, rows)) {
			t.Errorf("progress: %s", errOut)
		}
		var submitted cliBatch
		if err := json.Unmarshal([]byte(out), &submitted); err != nil {
			t.Fatalf("submit --json: %v", err)
		}
		members := (rows + 2) / 3
		if s := submitted.Summary; submitted.StatusCode != "OPEN" || s.PaymentsCount != rows || s.SettledCount != members || s.PendingCount != rows-members {
			t.Errorf("submitted: %+v", submitted)
		}

		// Once more: the batch is submitted, so nothing is sent.
		_, errOut, code = cli(t, srv, "batches", "upload", "--file", file, "--name", "November", "--request-size", size)
		if code != 0 || !strings.Contains(errOut, "submitted already: nothing sent") {
			t.Errorf("third run: exit %d: %s", code, errOut)
		}
		if bs := listBatches(t, srv); len(bs) != 1 || bs[0].Summary.PaymentsCount != rows {
			t.Errorf("after the third run: %+v", bs)
		}
		if report, err := srv.Svc.CheckLedger(t.Context()); err != nil || !report.OK {
			t.Errorf("ledger: %v %v", err, report.Problems)
		}
	})
}

// TestCLIUploadRefusesBadFile: every bad row is reported by line and
// column, with the service's own messages, and nothing is sent.
func TestCLIUploadRefusesBadFile(t *testing.T) {
	eachCLIStore(t, func(t *testing.T, srv *testserver.Server) {
		dir := t.TempDir()
		write := func(name, text string) string {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}
		bad := write("bad.csv", "msisdn,amount,externalId\n"+
			"254712345678,10.00,a\n"+
			"0712345678,10.00,b\n"+
			"254712345678,0.50,c\n"+
			"254712345678,1.001,a\n"+
			"\"254712345678,1\n")
		_, errOut, code := cli(t, srv, "batches", "upload", "--file", bad, "--name", "November")
		if code != exitValidation {
			t.Fatalf("exit %d, want %d: %s", code, exitValidation, errOut)
		}
		for _, want := range []string{
			"line 3, column msisdn: msisdn must be an international number",
			"line 4, column amount: amount must be at least 1 unit of the currency",
			"line 5, column amount: amount must be a number with at most 2 decimal places",
			"line 5, column externalId: externalId is used by",
			"line 6: ",
			"nothing was sent",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("report lacks %q:\n%s", want, errOut)
			}
		}
		extra := write("extra.csv", "msisdn,amount,iban\n254712345678,1,x\n")
		_, errOut, code = cli(t, srv, "batches", "upload", "--file", extra, "--name", "November")
		if code != exitValidation || !strings.Contains(errOut, "line 1, column iban: unknown column; the columns are "+strings.Join(csvpayments.Columns, ",")) {
			t.Errorf("extra column: exit %d: %s", code, errOut)
		}
		if bs := listBatches(t, srv); len(bs) != 0 {
			t.Errorf("a refused file made batches: %+v", bs)
		}
	})
}

// TestCLICommands: list, get, payments, cancel, accounts, human and
// --json, and the exit codes of a usage error and a service error.
func TestCLICommands(t *testing.T) {
	eachCLIStore(t, func(t *testing.T, srv *testserver.Server) {
		file := payoutsCSV(t, 3)
		out, errOut, code := cli(t, srv, "batches", "upload", "--file", file, "--name", "Tiny", "--external-id", "nov-2026")
		if code != 0 || !strings.Contains(out, "Tiny") || !strings.Contains(out, "DRAFT") {
			t.Fatalf("upload: %d %s %s", code, out, errOut)
		}
		id := listBatches(t, srv)[0].ID
		if out, _, _ := cli(t, srv, "batches", "get", id); !strings.Contains(out, id) || !strings.Contains(out, "6.03") {
			t.Errorf("get: %s", out)
		}
		if out, _, _ := cli(t, srv, "batches", "list", "--external-id", "nov-2026"); !strings.Contains(out, id) {
			t.Errorf("list --external-id: %s", out)
		}
		if out, _, _ := cli(t, srv, "batches", "payments", id); strings.Count(out, "DRAFT") != 3 || !strings.Contains(out, testserver.Member) {
			t.Errorf("payments: %s", out)
		}
		// Pages by cursor (version 2026-12-01): two, then the one left.
		first, _, _ := cli(t, srv, "batches", "payments", id, "--limit", "2")
		_, cursor, more := strings.Cut(strings.TrimSpace(first), "more follow: --cursor ")
		if strings.Count(first, "DRAFT") != 2 || !more {
			t.Fatalf("payments --limit 2: %s", first)
		}
		if rest, errOut, _ := cli(t, srv, "batches", "payments", id, "--limit", "2", "--cursor", cursor); strings.Count(rest, "DRAFT") != 1 || strings.Contains(rest, "more follow") {
			t.Errorf("payments --cursor: %s %s", rest, errOut)
		}
		if out, _, _ := cli(t, srv, "batches", "cancel", id); !strings.Contains(out, "CANCELLED") {
			t.Errorf("cancel: %s", out)
		}
		if out, _, _ := cli(t, srv, "accounts"); !strings.Contains(out, "100000000.00") {
			t.Errorf("accounts: %s", out)
		}
		if _, _, code := cli(t, srv, "batches", "get"); code != exitUsage {
			t.Errorf("get without an id: exit %d", code)
		}
		if _, errOut, code := cli(t, srv, "batches", "submit", id); code != exitService || !strings.Contains(errOut, "409 invalid_state") {
			t.Errorf("submit of a cancelled batch: exit %d: %s", code, errOut)
		}
		// A human --submit reads the batch again after the (large) answer.
		out, errOut, code = cli(t, srv, "batches", "upload", "--file", payoutsCSV(t, 4), "--name", "Paid", "--submit")
		if code != 0 || !strings.Contains(out, "Paid") || !strings.Contains(out, "OPEN") || !strings.Contains(out, "10.06") {
			t.Errorf("upload --submit: %d %s %s", code, out, errOut)
		}
		wrong := *srv
		wrong.APIKey = "dak_wrong"
		if _, errOut, code := cli(t, &wrong, "accounts"); code != exitService || !strings.Contains(errOut, "401") {
			t.Errorf("wrong key: exit %d: %s", code, errOut)
		}
	})
}

// TestCLISubmitWaitsForApproval: with an approval threshold, batches
// submit says that the batch waits for approval, and by which approval.
func TestCLISubmitWaitsForApproval(t *testing.T) {
	eachCLIStore(t, func(t *testing.T, srv *testserver.Server) {
		ctx := t.Context()
		token, _, err := srv.Auth.IssueToken(ctx, srv.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		caller, err := srv.Auth.Authenticate(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := organisations.UpdateSettings(ctx, srv.Svc, caller.OrganisationID, organisations.Settings{ApprovalThreshold: &organisations.ThresholdSetting{Amount: "0"}}); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := cli(t, srv, "batches", "upload", "--file", payoutsCSV(t, 3), "--name", "Held"); code != 0 {
			t.Fatalf("upload: %d %s", code, errOut)
		}
		id := listBatches(t, srv)[0].ID
		out, errOut, code := cli(t, srv, "batches", "submit", id)
		if code != 0 || !strings.Contains(out, "Not paid yet: the batch waits for approval ") || !strings.Contains(out, "(3 payments, ") {
			t.Errorf("submit over the threshold: %d %q %q", code, out, errOut)
		}
		if b := listBatches(t, srv)[0]; b.StatusCode != "DRAFT" {
			t.Errorf("the batch is %s, want DRAFT", b.StatusCode)
		}
	})
}
