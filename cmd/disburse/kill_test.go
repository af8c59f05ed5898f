package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestKill9 kills `disburse serve` with SIGKILL at random moments of a
// large submit, registrations, a cancel and the reversal sweep (legs fall
// due a second after their submit, and the worker looks every 100 ms),
// restarts it on the same database, and checks through the API after each
// kill: the ledger check passes, deposits equal float + held + wallets,
// and a submit that answered 200 left its batch submitted. On SQLite and
// on PostgreSQL.
func TestKill9(t *testing.T) { killOnEachStore(t, testKill9) }

// killOnEachStore builds the binary once and runs test with it on a new
// SQLite file and a new PostgreSQL database, side by side.
func killOnEachStore(t *testing.T, test func(t *testing.T, bin, url string)) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	testenv.SkipUnlessLong(t) // rounds of kill -9
	bin := buildBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		test(t, bin, "sqlite:"+filepath.Join(t.TempDir(), "kill.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		test(t, bin, pgtest.URL(t))
	})
}

func testKill9(t *testing.T, bin, url string) {
	const admin = "kill-nine-test-admin-token"
	start := func() *serveProcess {
		return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"}, "serve", "--listen", "127.0.0.1:0",
			"--database-url", url, "--admin-token", admin, "--worker-interval", "100ms")
	}
	s := start()
	c := client{t: t, admin: admin}
	org := c.call(s, "POST", "/admin/organisations", admin, `{"name":"Kill Ltd","referralsEnabled":true}`, 201)
	orgID := org["id"].(string)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	c.call(s, "PUT", "/admin/organisations/"+orgID+"/settings", admin, `{"reversalPeriodSeconds":1}`, 200)
	const deposited = "100000000.00"
	c.call(s, "POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":`+deposited+`}`, 201)
	key := c.call(s, "POST", "/admin/organisations/"+orgID+"/apiKeys", admin, ``, 201)["apiKey"].(string)

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	const rounds = 5
	next := 0
	var previous string
	var tried []string // payees a registration was sent for
	for round := range rounds {
		token := c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
		first := next
		batch := c.batchOf(s, token, 10_000, func(int) (string, string) {
			next++
			return fmt.Sprintf("2547%08d", 20_000_000+next), "10.00"
		})
		var wg sync.WaitGroup
		var submitStatus int
		wg.Go(func() { submitStatus = try(s, "POST", "/batches/"+batch+"/submit", token, "") })
		for range 3 {
			m := fmt.Sprintf("2547%08d", 20_000_000+1+rng.IntN(next))
			tried = append(tried, m)
			wg.Go(func() { try(s, "POST", "/admin/members", admin, `{"msisdn":"`+m+`","appInstalled":true}`) })
		}
		if previous != "" {
			wg.Go(func() { try(s, "POST", "/batches/"+previous+"/cancel", token, "") })
		}
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		if err := s.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		<-s.done
		s = start()

		token = c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
		status := c.call(s, "GET", "/batches/"+batch, token, "", 200)["statusCode"]
		if submitStatus == 200 && status == "DRAFT" {
			t.Errorf("round %d: submit answered 200, batch %s", round, status)
		}
		checkConservedOverHTTP(t, c, s, token, deposited, tried)
		t.Logf("round %d: payees %d-%d, submit answered %d, batch %s after restart", round, first, next, submitStatus, status)
		previous = batch
	}
	t.Logf("%d kill -9 rounds, ledger sound and money conserved after each", rounds)
	s.stop(t)
}

// try sends a request to a process that may be killed under it: a
// transport error is status 0, not a failure.
func try(s *serveProcess, method, path, token, body string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewBufferString(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// checkConservedOverHTTP requires a sound ledger and the deposits to be
// in the float, held, or in the wallets of the payees in members.
func checkConservedOverHTTP(t *testing.T, c client, s *serveProcess, token, deposited string, members []string) {
	t.Helper()
	if check := c.call(s, "GET", "/admin/ledger/check", c.admin, "", 200); check["ok"] != true {
		t.Fatalf("ledger check %v", check)
	}
	money := func(v any) disburse.Money {
		t.Helper()
		m, ok := disburse.ParseMoney(string(v.(json.Number)))
		if !ok {
			t.Fatalf("amount %v", v)
		}
		return m
	}
	var total disburse.Money
	for _, a := range c.listNumbers(s, "/accounts", token) {
		total += money(a["balance"]) + money(a["heldBalance"])
	}
	seen := map[string]bool{}
	for _, m := range members {
		if !seen[m] {
			seen[m] = true
			total += money(c.callNumbers(s, "GET", "/admin/members/"+m+"/statement", c.admin)["balance"])
		}
	}
	if want, _ := disburse.ParseMoney(deposited); total != want {
		t.Fatalf("float + held + wallets = %s, deposited %s", total, deposited)
	}
}

// callNumbers GETs an object with its numbers kept as text.
func (c client) callNumbers(s *serveProcess, method, path, token string) map[string]any {
	c.t.Helper()
	status, b := c.do(s, method, path, token, "")
	var out map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if status != 200 || d.Decode(&out) != nil {
		c.t.Fatalf("%s %s: %d %s", method, path, status, b)
	}
	return out
}

// listNumbers GETs an array of objects with their numbers kept as text.
func (c client) listNumbers(s *serveProcess, path, token string) []map[string]any {
	c.t.Helper()
	status, b := c.do(s, "GET", path, token, "")
	var out []map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if status != 200 || d.Decode(&out) != nil {
		c.t.Fatalf("GET %s: %d %s", path, status, b)
	}
	return out
}
