package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/postgres/pgtest"
)

// TestKill9Idempotent kills `disburse serve` with SIGKILL at a random
// moment of a submit sent with an Idempotency-Key, restarts it on the same
// database, and retries the submit with the key until it answers: the
// batch is submitted exactly once (the float is down by one batch per
// round, the ledger is sound), and the answer is the submit's, run or
// replayed. The lease is the default of ten minutes: a claim the killed
// process left is taken over once it expires unrenewed, within
// idempotency.ClaimExpiry. On SQLite and on PostgreSQL.
func TestKill9Idempotent(t *testing.T) { killOnEachStore(t, testKill9Idempotent) }

func testKill9Idempotent(t *testing.T, bin, url string) {
	const admin = "kill-nine-idempotent-admin-token"
	start := func() *serveProcess {
		return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"}, "serve", "--listen", "127.0.0.1:0",
			"--database-url", url, "--admin-token", admin, "--worker-interval", "100ms")
	}
	s := start()
	c := client{t: t, admin: admin}
	org := c.call(s, "POST", "/admin/organisations", admin, `{"name":"Retry Ltd"}`, 201)
	orgID := org["id"].(string)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	c.call(s, "POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":10000000}`, 201)
	key := c.call(s, "POST", "/admin/organisations/"+orgID+"/apiKeys", admin, ``, 201)["apiKey"].(string)

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 2))
	t.Logf("seed %d", seed)
	const rounds, size = 4, 5_000
	next := 0
	for round := range rounds {
		token := c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
		batch := c.batchOf(s, token, size, func(int) (string, string) {
			next++
			return fmt.Sprintf("2547%08d", 30_000_000+next), "10.00"
		})
		idemKey := fmt.Sprintf("submit-%d-%d", seed, round)
		path := "/batches/" + batch + "/submit"
		killed := make(chan int, 1)
		go func() { status, _, _ := sendWithKey(s, path, token, idemKey, ""); killed <- status }()
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond) // sometimes before the commit, sometimes after
		if err := s.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-s.done
		first := <-killed
		s = start()

		// Retry with the key until the answer is no longer "in flight".
		token = c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
		var status int
		var replayed string
		var body []byte
		restarted := time.Now()
		for deadline := restarted.Add(time.Minute); ; {
			status, replayed, body = sendWithKey(s, path, token, idemKey, "")
			if status != http.StatusConflict || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		var answer struct {
			StatusCode string            `json:"statusCode"`
			Payments   []json.RawMessage `json:"payments"`
		}
		if status != 200 || json.Unmarshal(body, &answer) != nil || answer.StatusCode != "OPEN" || len(answer.Payments) != size {
			t.Fatalf("round %d: retry answered %d (replayed %q): %.300s", round, status, replayed, body)
		}
		// Once more: a replay now, whatever the retry was.
		if status, replayed, again := sendWithKey(s, path, token, idemKey, ""); status != 200 || replayed != "true" || !bytes.Equal(again, body) {
			t.Errorf("round %d: replay %d %q, same bytes %v", round, status, replayed, bytes.Equal(again, body))
		}
		// The float went down by one batch per round: the submit ran once.
		want := fmt.Sprintf("%d.00", 10_000_000-(round+1)*size*10)
		balance := c.listNumbers(s, "/accounts", token)[0]["balance"].(json.Number).String()
		if balance != want {
			t.Fatalf("round %d: float %s, want %s: the submit ran other than once", round, balance, want)
		}
		if check := c.call(s, "GET", "/admin/ledger/check", admin, "", 200); check["ok"] != true {
			t.Fatalf("round %d: ledger check %v", round, check)
		}
		t.Logf("round %d: the killed request answered %d; the retry %d, replayed %q, after %v", round, first, status, replayed, time.Since(restarted).Round(time.Millisecond))
	}
	s.stop(t)
}

// TestKill9IdempotentSecret kills `disburse serve` with SIGKILL between
// the commit of an API key's issue, or of a webhook's registration, and
// the keeping of its answer just after, restarts it, and retries with the
// Idempotency-Key: the retry replays the answer, secret included, since
// the answer was kept sealed in the work's own transaction. The kill
// lands in that window every time: a trigger the test adds holds the
// write that keeps the answer after the commit (pg_sleep) until the test
// has killed the process. PostgreSQL only: SQLite has no way to hold a
// write from inside the database.
func TestKill9IdempotentSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	url := pgtest.URL(t)
	db, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	// The transaction that marks the key done notes it; a later one that
	// keeps the answer of a key already done sleeps, to be killed.
	if _, err := db.Exec(t.Context(), `
		CREATE FUNCTION hold_answer_after_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.done AND NOT OLD.done THEN
				PERFORM set_config('killtest.marked', 'yes', true);
			ELSIF OLD.done AND NEW.status <> 0 AND coalesce(current_setting('killtest.marked', true), '') <> 'yes' THEN
				PERFORM pg_sleep(60);
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER hold_answer_after_commit BEFORE UPDATE ON idempotency_keys
			FOR EACH ROW EXECUTE FUNCTION hold_answer_after_commit();`); err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	const admin = "kill-nine-secret-admin-token"
	start := func() *serveProcess {
		return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"}, "serve", "--listen", "127.0.0.1:0",
			"--database-url", url, "--admin-token", admin, "--worker-interval", "100ms", "--idempotency-lease", "2s",
			"--webhook-allow-private")
	}
	s := start()
	c := client{t: t, admin: admin}
	orgID := c.call(s, "POST", "/admin/organisations", admin, `{"name":"Secrets Ltd"}`, 201)["id"].(string)
	apiKey := c.call(s, "POST", "/admin/organisations/"+orgID+"/apiKeys", admin, ``, 201)["apiKey"].(string)
	token := func() string {
		return c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+apiKey+`"}`, 200)["accessToken"].(string)
	}

	// killedInWindow sends the request, kills the process while it keeps
	// the answer after the commit, restarts it and retries until the key
	// is no longer in flight; it returns the retry's answer.
	killedInWindow := func(path string, bearer func() string, key, body string) (int, string, []byte) {
		t.Helper()
		sent := make(chan int, 1)
		proc, auth := s, bearer()
		go func() { status, _, _ := sendWithKey(proc, path, auth, key, body); sent <- status }()
		var held int32
		for deadline := time.Now().Add(30 * time.Second); held == 0; time.Sleep(20 * time.Millisecond) {
			err := db.QueryRow(t.Context(), `SELECT pid FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event = 'PgSleep'`).Scan(&held)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				t.Fatal(err)
			}
			if held == 0 && time.Now().After(deadline) {
				t.Fatalf("POST %s never kept its answer after the commit:\n%s", path, s.log.String())
			}
		}
		if err := s.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-s.done
		if status := <-sent; status != 0 {
			t.Fatalf("POST %s answered %d before the kill", path, status)
		}
		// The dead process's statement ends; its transaction never commits.
		if _, err := db.Exec(t.Context(), `SELECT pg_cancel_backend($1)`, held); err != nil {
			t.Fatal(err)
		}
		s = start()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			status, replayed, answer := sendWithKey(s, path, bearer(), key, body)
			if status != http.StatusConflict || !bytes.Contains(answer, []byte("idempotency_in_progress")) || time.Now().After(deadline) {
				return status, replayed, answer
			}
		}
	}
	replayedAgain := func(path string, bearer func() string, key, body string, first []byte) {
		t.Helper()
		if status, replayed, again := sendWithKey(s, path, bearer(), key, body); status/100 != 2 || replayed != "true" || !bytes.Equal(again, first) {
			t.Errorf("POST %s replayed again: %d %q %s, want %s", path, status, replayed, again, first)
		}
	}
	adminToken := func() string { return admin }

	// An API key: the retry replays it, and it is the key issued, once.
	keysPath := "/admin/organisations/" + orgID + "/apiKeys"
	status, replayed, answer := killedInWindow(keysPath, adminToken, "issue-1", ``)
	var issued struct{ ID, APIKey string }
	if status != 201 || replayed != "true" || json.Unmarshal(answer, &issued) != nil || issued.APIKey == "" {
		t.Fatalf("API key retried: %d (replayed %q) %s", status, replayed, answer)
	}
	c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+issued.APIKey+`"}`, 200)
	replayedAgain(keysPath, adminToken, "issue-1", ``, answer)

	// A webhook: the retry replays it with its secret, and one endpoint exists.
	hookBody := `{"url":"http://127.0.0.1:9/hook","events":["batch.closed"]}`
	status, replayed, answer = killedInWindow("/webhooks", token, "hook-1", hookBody)
	var hook struct{ ID, Secret string }
	if status != 201 || replayed != "true" || json.Unmarshal(answer, &hook) != nil || !strings.HasPrefix(hook.Secret, "whsec_") {
		t.Fatalf("webhook retried: %d (replayed %q) %s", status, replayed, answer)
	}
	if hooks := c.listNumbers(s, "/webhooks", token()); len(hooks) != 1 || hooks[0]["id"] != hook.ID {
		t.Errorf("webhooks after the retry: %v, want the one replayed", hooks)
	}
	replayedAgain("/webhooks", token, "hook-1", hookBody, answer)
	s.stop(t)
}

// sendWithKey POSTs body to path with an Idempotency-Key, to a process
// that may be killed under it: a transport error is status 0.
func sendWithKey(s *serveProcess, path, token, key, body string) (status int, replayed string, answer []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+path, strings.NewReader(body))
	if err != nil {
		return 0, "", nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", nil
	}
	defer resp.Body.Close()
	answer, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", nil
	}
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), answer
}
