package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/internal/testserver"
)

// TestCLIExport: batches export writes the batch's results, the file of
// GET /batches/{id}/payments.csv, to standard output or to --out; a
// download cut short exits 3 and leaves no file; a batch not found
// exits 3 with the service's 404.
func TestCLIExport(t *testing.T) {
	eachCLIStore(t, func(t *testing.T, srv *testserver.Server) {
		if _, errOut, code := cli(t, srv, "batches", "upload", "--file", payoutsCSV(t, 5), "--name", "Paid", "--submit"); code != 0 {
			t.Fatalf("upload: %d %s", code, errOut)
		}
		id := listBatches(t, srv)[0].ID

		out, errOut, code := cli(t, srv, "batches", "export", id)
		if code != 0 {
			t.Fatalf("export: exit %d: %s", code, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 6 || lines[0] != strings.Join(csvpayments.ResultColumns, ",") {
			t.Fatalf("export: %d lines, header %q:\n%s", len(lines), lines[0], out)
		}
		// Every third row pays the member (settled at once), the others wait.
		for i, line := range lines[1:] {
			want := ",PENDING,false,,"
			if i%3 == 0 {
				want = ",SETTLED,true,2"
			}
			if !strings.Contains(line, fmt.Sprintf(",Payee %d,", i)) || !strings.Contains(line, want) {
				t.Errorf("row %d: %q, want payee %d and %q", i+1, line, i, want)
			}
		}

		dir := t.TempDir()
		path := filepath.Join(dir, "results.csv")
		if _, errOut, code := cli(t, srv, "batches", "export", id, "--out", path); code != 0 || !strings.Contains(errOut, "5 payments written to "+path) {
			t.Fatalf("export --out: exit %d: %s", code, errOut)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != out {
			t.Errorf("the --out file differs from standard output (%v):\n%s", err, got)
		}

		if _, errOut, code := cli(t, srv, "batches", "export", id, "--json"); code != exitUsage {
			t.Errorf("export --json: exit %d, want %d: %s", code, exitUsage, errOut)
		}
		if _, errOut, code := cli(t, srv, "batches", "export", "0190f5c2-0000-7000-8000-000000000000"); code != exitService || !strings.Contains(errOut, "404 not_found") {
			t.Errorf("export of no batch: exit %d: %s", code, errOut)
		}

		// Through a proxy that breaks the connection after the first line,
		// as the service does when it cannot finish the file.
		target, _ := url.Parse(srv.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		cutter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/payments.csv") {
				proxy.ServeHTTP(w, r)
				return
			}
			req, _ := http.NewRequestWithContext(r.Context(), "GET", srv.URL+r.URL.Path, nil)
			req.Header.Set("Authorization", r.Header.Get("Authorization"))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
			w.WriteHeader(res.StatusCode)
			io.CopyN(w, res.Body, int64(len(lines[0])+1))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}))
		defer cutter.Close()
		cut := *srv
		cut.URL = cutter.URL
		cutPath := filepath.Join(dir, "cut.csv")
		if _, errOut, code := cli(t, &cut, "batches", "export", id, "--out", cutPath); code != exitService || !strings.Contains(errOut, "cut short") {
			t.Errorf("export cut short: exit %d, want %d: %s", code, exitService, errOut)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 || left[0].Name() != "results.csv" {
			t.Errorf("after the cut, the directory holds %v, want results.csv alone", left)
		}
	})
}
