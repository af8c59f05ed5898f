package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

// TestKill9Idempotent kills `disburse serve` with SIGKILL at a random
// moment of a submit sent with an Idempotency-Key, restarts it on the same
// database, and retries the submit with the key until it answers: the
// batch is submitted exactly once (the float is down by one batch per
// round, the ledger is sound), and the answer is the submit's, run or
// replayed. On SQLite and on PostgreSQL.
func TestKill9Idempotent(t *testing.T) { killOnEachStore(t, testKill9Idempotent) }

func testKill9Idempotent(t *testing.T, bin, url string) {
	const admin = "kill-nine-idempotent-admin-token"
	start := func() *serveProcess {
		return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"}, "serve", "--listen", "127.0.0.1:0",
			"--database-url", url, "--admin-token", admin, "--worker-interval", "100ms", "--idempotency-lease", "2s")
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
		go func() { status, _, _ := sendWithKey(s, path, token, idemKey); killed <- status }()
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
		for deadline := time.Now().Add(time.Minute); ; {
			status, replayed, body = sendWithKey(s, path, token, idemKey)
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
		if status, replayed, again := sendWithKey(s, path, token, idemKey); status != 200 || replayed != "true" || !bytes.Equal(again, body) {
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
		t.Logf("round %d: the killed request answered %d; the retry %d, replayed %q", round, first, status, replayed)
	}
	s.stop(t)
}

// sendWithKey POSTs to path with an Idempotency-Key, to a process that may
// be killed under it: a transport error is status 0.
func sendWithKey(s *serveProcess, path, token, key string) (status int, replayed string, body []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+path, nil)
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
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", nil
	}
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), body
}
