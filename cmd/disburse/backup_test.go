package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupWhileServing: `disburse backup` copies a SQLite database
// while serve moves money in it (batches submitted, members registered,
// deposits), and each copy, opened by serve as a restore would, passes
// the ledger check. An existing file and a PostgreSQL URL are refused.
func TestBackupWhileServing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	const admin = "backup-test-operator-token-0123456789"
	s := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--admin-token", admin, "--database-url", "sqlite:"+db)
	h := httpClient{t: t, base: s.base}
	org := h.call("POST", "/admin/organisations", admin, `{"name":"Backup Ltd"}`, 201)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	h.call("POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":1000000}`, 201)
	key := h.call("POST", "/admin/organisations/"+org["id"].(string)+"/apiKeys", admin, "", 201)["apiKey"].(string)
	token := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)

	// Two writers until the backups are done (at most 200 rounds each):
	// submits of batches to new payees, and the payees' registrations and
	// deposits, which settle held legs and move the float.
	stop := make(chan struct{})
	var rounds, submitted atomic.Int64
	var wg sync.WaitGroup
	writer := func(round func(i int) error) {
		defer wg.Done()
		for i := range 200 {
			select {
			case <-stop:
				return
			default:
			}
			if err := round(i); err != nil {
				t.Error(err)
				return
			}
			rounds.Add(1)
		}
	}
	msisdn := func(i, k int) string { return fmt.Sprintf("25471%03d%04d", i, k) }
	wg.Add(2)
	go writer(func(i int) error {
		id, err := post(s.base, "/batches", token, `{"name":"round"}`, 201, `"id":"`)
		if err != nil {
			return err
		}
		var payments []string
		for k := range 10 {
			payments = append(payments, fmt.Sprintf(`{"msisdn":%q,"amount":1.25}`, msisdn(i, k)))
		}
		if _, err := post(s.base, "/batches/"+id+"/payments", token, `{"clearExisting":false,"payments":[`+strings.Join(payments, ",")+`]}`, 200, ""); err != nil {
			return err
		}
		if _, err = post(s.base, "/batches/"+id+"/submit", token, "", 200, ""); err != nil {
			return err
		}
		submitted.Add(1)
		return nil
	})
	go writer(func(i int) error {
		if _, err := post(s.base, "/admin/members", admin, fmt.Sprintf(`{"msisdn":%q}`, msisdn(i/2, i%10)), 0, ""); err != nil {
			return err
		}
		_, err := post(s.base, "/admin/accounts/"+account+"/deposits", admin, `{"amount":10}`, 201, "")
		return err
	})

	var copies []string
	var submittedBefore []int64 // batches whose submit was answered before each backup began
	for n := range 3 {
		for deadline := time.Now().Add(30 * time.Second); rounds.Load() < int64(10*(n+1)) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // until the writers are under way
		}
		file := filepath.Join(dir, fmt.Sprintf("copy%d.db", n))
		submittedBefore = append(submittedBefore, submitted.Load())
		if stdout, stderr, code := runBinary(t, bin, nil, "backup", "--database-url", "sqlite:"+db, "--to", file); code != 0 {
			t.Fatalf("backup: exit %d\n%s%s", code, stdout, stderr)
		}
		copies = append(copies, file)
	}
	done := rounds.Load()
	close(stop)
	wg.Wait()
	if rounds.Load() == done {
		t.Errorf("the writers stopped before the last backup was taken: the copies were not made under writes")
	}

	// A backup never overwrites a file, nor copies PostgreSQL.
	before, _ := os.ReadFile(copies[0])
	if _, stderr, code := runBinary(t, bin, nil, "backup", "--database-url", "sqlite:"+db, "--to", copies[0]); code == 0 || !strings.Contains(stderr, "exists") {
		t.Errorf("backup to an existing file: exit %d, stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(copies[0]); string(after) != string(before) {
		t.Error("a refused backup changed the existing file")
	}
	if _, stderr, code := runBinary(t, bin, nil, "backup", "--database-url", "postgres://127.0.0.1:1/none", "--to", filepath.Join(dir, "pg.db")); code == 0 || !strings.Contains(stderr, "pg_dump") {
		t.Errorf("backup of PostgreSQL: exit %d, stderr %q; want pg_dump and base backups named", code, stderr)
	}
	s.stop(t)

	// Restore: serve opens each copy, which holds every submit answered
	// before its backup began, and its ledger checks out.
	for i, file := range copies {
		if n := count(t, file, "SELECT count(*) FROM batches WHERE status <> 'DRAFT'"); n < int(submittedBefore[i]) {
			t.Errorf("%s: %d batches submitted, want at least the %d submitted before the backup began", file, n, submittedBefore[i])
		}
		r := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--admin-token", admin, "--database-url", "sqlite:"+file)
		check := httpClient{t: t, base: r.base}.call("GET", "/admin/ledger/check", admin, "", 200)
		if check["ok"] != true {
			t.Errorf("%s: ledger check %v", file, check)
		}
		r.stop(t)
	}
}

// post sends one request from a writer goroutine, which must not stop the
// test itself: it returns an error for a status other than want (0: any
// 2xx), and the text after find in the body up to the next quote.
func post(base, path, token, body string, want int, find string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("POST %s: %w", path, err)
	}
	if want == 0 && resp.StatusCode/100 != 2 || want != 0 && resp.StatusCode != want {
		return "", fmt.Errorf("POST %s: status %d: %s", path, resp.StatusCode, b)
	}
	if find == "" {
		return "", nil
	}
	_, rest, ok := strings.Cut(string(b), find)
	if !ok {
		return "", fmt.Errorf("POST %s: no %s in %s", path, find, b)
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value, nil
}
