package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/postgres/pgtest"
)

// TestReplicas starts three real `disburse serve` processes on one
// PostgreSQL database and drives them at once (docs/api.md section 9: several
// replicas are safe). Every figure it checks comes from the API.
func TestReplicas(t *testing.T) {
	url := pgtest.URL(t) // skips, saying how to run it, without DISBURSE_TEST_POSTGRES_URL
	bin := buildBinary(t)
	const admin = "replica-test-admin-token"
	var replicas []*replica
	for range 3 {
		replicas = append(replicas, startReplica(t, bin, url, admin))
	}

	// An organisation whose non-members' payments are due for reversal one
	// second after submit, with float for everything below.
	c := client{t: t, admin: admin}
	r0 := replicas[0]
	org := c.call(r0, "POST", "/admin/organisations", admin, `{"name":"Replica Ltd"}`, 201)
	orgID := org["id"].(string)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	c.call(r0, "PUT", "/admin/organisations/"+orgID+"/settings", admin, `{"reversalPeriodSeconds":1}`, 200)
	c.call(r0, "POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":1000000}`, 201)
	key := c.call(r0, "POST", "/admin/organisations/"+orgID+"/apiKeys", admin, ``, 201)["apiKey"].(string)
	token := c.call(r0, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)

	t.Run("ConcurrentSubmitsOfOneBatch", func(t *testing.T) {
		c := client{t: t, admin: admin}
		batch := c.batchOf(r0, token, 50, func(int) (string, string) { return "254712345678", "10.00" })
		statuses := make([]int, 9)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() { statuses[i] = c.status(replicas[i%3], "POST", "/batches/"+batch+"/submit", token) })
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[409] != 8 {
			t.Errorf("submit statuses %v: want exactly one 200 and 409s", count)
		}
	})

	t.Run("RegistrationRacesReversal", func(t *testing.T) { testReplicasRegistrationRacesReversal(t, replicas, token, admin) })

	t.Run("ThousandDueReversals", func(t *testing.T) {
		c := client{t: t, admin: admin}
		batch := c.batchOf(r0, token, 1000, func(i int) (string, string) { return fmt.Sprintf("2547%08d", 10000000+i), "10.00" })
		c.call(r0, "POST", "/batches/"+batch+"/submit", token, ``, 200)
		b := c.waitClosed(replicas, batch, token)
		if s := b["summary"].(map[string]any); s["cancelledCount"].(float64) != 1000 || s["cancelledAmount"].(float64) != 10000 {
			t.Errorf("summary %v: want all 1,000 payments reversed", s)
		}
	})

	check := c.call(replicas[1], "GET", "/admin/ledger/check", admin, ``, 200)
	if check["ok"] != true {
		t.Errorf("ledger check: %v", check["problems"])
	}
	// Each replica exits 0 on SIGTERM.
	for _, r := range replicas {
		r.stop(t)
	}
}

// testReplicasRegistrationRacesReversal: 20 payees with 5 payments each,
// in five batches of one payment per payee, submitted 100 ms apart on
// different replicas, so each payee's legs fall due for reversal at 1.0,
// 1.1, ... 1.4 s after the first submit. Each payee registers on another
// replica than the last, at staggered times from 0.7 s to 1.6 s, so
// registrations land before, between and after the due moments while
// three sweeps (every 100 ms each) claim due legs. Whoever wins, each leg
// is resolved once and a payee's wallet holds exactly what settled.
func testReplicasRegistrationRacesReversal(t *testing.T, replicas []*replica, token, admin string) {
	r0 := replicas[0]
	c := client{t: t, admin: admin}
	const payees, each = 20, 5
	payee := func(p int) string { return fmt.Sprintf("2547220001%02d", p) }
	var batches []string
	for j := range each {
		batches = append(batches, c.batchOf(r0, token, payees, func(p int) (string, string) {
			return payee(p), fmt.Sprintf("%d.00", 10+j)
		}))
	}
	var first time.Time
	for j, b := range batches {
		if j == 0 {
			first = time.Now()
		}
		time.Sleep(time.Until(first.Add(time.Duration(j) * 100 * time.Millisecond)))
		c.call(replicas[j%3], "POST", "/batches/"+b+"/submit", token, ``, 200)
	}
	var wg sync.WaitGroup
	for p := range payees {
		wg.Go(func() {
			time.Sleep(time.Until(first.Add(700*time.Millisecond + time.Duration(p)*900*time.Millisecond/(payees-1))))
			if status, b := c.do(replicas[p%3], "POST", "/admin/members", admin, `{"msisdn":"`+payee(p)+`"}`); status != 201 {
				t.Errorf("register %s: status %d: %s", payee(p), status, b)
			}
		})
	}
	wg.Wait()
	var payments []map[string]any
	for j, b := range batches {
		c.waitClosed(replicas, b, token)
		payments = append(payments, c.list(replicas[j%3], "/batches/"+b+"/payments", token)...)
	}

	type legs struct {
		settled, cancelled int
		settledCents       int64
		settledIDs         []string
	}
	byPayee := map[string]*legs{}
	for _, p := range payments {
		l := byPayee[p["msisdn"].(string)]
		if l == nil {
			l = &legs{}
			byPayee[p["msisdn"].(string)] = l
		}
		switch p["statusCode"] {
		case "SETTLED":
			l.settled++
			l.settledCents += cents(p["amount"])
			l.settledIDs = append(l.settledIDs, p["id"].(string))
		case "CANCELLED":
			l.cancelled++
		default:
			t.Errorf("payment %v is %v in a CLOSED batch", p["id"], p["statusCode"])
		}
	}
	var split []string
	totalSettled := 0
	for p := range payees {
		m := payee(p)
		l := byPayee[m]
		if l == nil {
			t.Errorf("payee %s: no payments listed", m)
			continue
		}
		split = append(split, fmt.Sprintf("%d/%d", l.settled, l.cancelled))
		totalSettled += l.settled
		if l.settled+l.cancelled != each {
			t.Errorf("payee %s: settled %d + cancelled %d, want each of %d legs resolved once", m, l.settled, l.cancelled, each)
		}
		st := c.call(replicas[p%3], "GET", "/admin/members/"+m+"/statement", admin, ``, 200)
		var entries []string
		for _, e := range st["entries"].([]any) {
			entries = append(entries, e.(map[string]any)["paymentId"].(string))
		}
		slices.Sort(entries)
		slices.Sort(l.settledIDs)
		if !slices.Equal(entries, l.settledIDs) {
			t.Errorf("payee %s: statement entries %v, want its settled payments %v", m, entries, l.settledIDs)
		}
		if got := cents(st["balance"]); got != l.settledCents {
			t.Errorf("payee %s: wallet balance %d cents, want the %d settled", m, got, l.settledCents)
		}
	}
	// Not asserted (timing decides it), but a real race shows payees
	// registered early all settled, late ones all cancelled, and mixed
	// ones between.
	t.Logf("settled %d, cancelled %d of %d legs; per payee settled/cancelled by registration time: %v",
		totalSettled, payees*each-totalSettled, payees*each, split)
}

// A replica is a `disburse serve` process (serve_test.go starts and stops them).
type replica = serveProcess

func startReplica(t *testing.T, bin string, url, admin string) *replica {
	t.Helper()
	return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"},
		"serve", "--listen", "127.0.0.1:0", "--database-url", url, "--admin-token", admin, "--worker-interval", "100ms")
}

type client struct {
	t     *testing.T
	admin string
}

func (c client) do(r *replica, method, path, token, body string) (int, []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, bytes.NewBufferString(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c client) status(r *replica, method, path, token string) int {
	s, _ := c.do(r, method, path, token, "")
	return s
}

// call sends a request, requires the status and decodes an object body.
func (c client) call(r *replica, method, path, token, body string, want int) map[string]any {
	c.t.Helper()
	status, b := c.do(r, method, path, token, body)
	if status != want {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	var out map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return out
}

// batchOf creates a batch of n payments, the i-th of amount to msisdn as
// payment(i) returns them.
func (c client) batchOf(r *replica, token string, n int, payment func(i int) (msisdn, amount string)) string {
	c.t.Helper()
	id := c.call(r, "POST", "/batches", token, `{"name":"replicas"}`, 201)["id"].(string)
	var body bytes.Buffer
	body.WriteString(`{"clearExisting":false,"payments":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		msisdn, amount := payment(i)
		fmt.Fprintf(&body, `{"msisdn":%q,"amount":%s}`, msisdn, amount)
	}
	body.WriteString(`]}`)
	c.call(r, "POST", "/batches/"+id+"/payments", token, body.String(), 200)
	return id
}

// list GETs path, requires 200 and decodes an array of objects.
func (c client) list(r *replica, path, token string) []map[string]any {
	c.t.Helper()
	status, b := c.do(r, "GET", path, token, "")
	var out []map[string]any
	if status != 200 {
		c.t.Fatalf("GET %s: status %d: %s", path, status, b)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		c.t.Fatalf("GET %s: %v: %s", path, err, b)
	}
	return out
}

// cents converts an amount as the API writes it (a number with two
// decimals, decoded as float64) to minor units.
func cents(v any) int64 {
	return int64(math.Round(v.(float64) * 100))
}

// waitClosed polls the replicas in turn until the batch is CLOSED.
func (c client) waitClosed(replicas []*replica, batch, token string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		b := c.call(replicas[i%len(replicas)], "GET", "/batches/"+batch, token, ``, 200)
		if b["statusCode"] == "CLOSED" {
			return b
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("batch still %v after 60s: %v", b["statusCode"], b["summary"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
