package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/fanout"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/notifications"
)

// TestKill9NotificationDuplicates kills `disburse serve` with SIGKILL while
// it sends 2,000 SMS notifications through an HTTP gateway, restarts it on
// the same database, and counts what the gateway received: every
// notification at least once, no repeat but of the sends the gateway had
// taken without their outcome in the outbox at the kill, and those no
// more than a process may have (docs/operations.md,
// "Background work and how it is claimed"), and
// every notification SENT within the lease and a few seconds of the kill:
// the dead process's rows are free again one lease after it stopped
// renewing them. On SQLite and on PostgreSQL.
func TestKill9NotificationDuplicates(t *testing.T) {
	killOnEachStore(t, testKill9NotificationDuplicates)
}

func testKill9NotificationDuplicates(t *testing.T, bin, url string) {
	const admin, n = "kill-notify-test-admin-token", 2000
	var mu sync.Mutex
	received := map[string][]time.Time{} // Idempotency-Key → when each copy arrived
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // a gateway's answer time
		mu.Lock()
		defer mu.Unlock()
		k := r.Header.Get("Idempotency-Key")
		received[k] = append(received[k], time.Now())
	}))
	defer gateway.Close()
	count := func() (distinct, copies int) {
		mu.Lock()
		defer mu.Unlock()
		for _, at := range received {
			distinct, copies = distinct+1, copies+len(at)
		}
		return distinct, copies
	}
	start := func() *serveProcess {
		return startServe(t, bin, []string{"DISBURSE_NOTIFY_PROVIDER=http", "DISBURSE_NOTIFY_URL=" + gateway.URL},
			"serve", "--listen", "127.0.0.1:0", "--database-url", url, "--admin-token", admin, "--worker-interval", "100ms")
	}
	s := start()
	c := client{t: t, admin: admin}
	org := c.call(s, "POST", "/admin/organisations", admin, `{"name":"Kill Notify Ltd"}`, 201)
	orgID := org["id"].(string)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	c.call(s, "POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":100000}`, 201)
	key := c.call(s, "POST", "/admin/organisations/"+orgID+"/apiKeys", admin, ``, 201)["apiKey"].(string)
	token := c.call(s, "POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
	batch := c.batchOf(s, token, n, func(i int) (string, string) { return fmt.Sprintf("2547%08d", 30_000_000+i), "10.00" })
	c.call(s, "POST", "/batches/"+batch+"/submit", token, "", 200)

	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if d, _ := count(); d >= n/4 {
			break
		}
	}
	if d, _ := count(); d == 0 {
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		<-s.done
		t.Fatalf("nothing sent before the kill; the log:\n%s", s.log.String())
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	killed := time.Now()
	// The dead process's sends in flight: what the gateway took in (each
	// handler done after its 20 ms) without an outcome in the outbox.
	time.Sleep(100 * time.Millisecond)
	before, _ := count()
	store, err := openStore(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	inFlight := before - sentIn(t, store)
	s = start()
	defer s.stop(t)

	// Done when the outbox says every notification is SENT: each copy the
	// gateway got was sent before its row was recorded.
	lease := notifications.DefaultPolicy.Lease
	sent, done := 0, time.Duration(0)
	for deadline := killed.Add(lease + 30*time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		sent = sentIn(t, store)
		if done = time.Since(killed); sent == n {
			break
		}
	}
	if sent != n {
		t.Fatalf("%d of %d notifications SENT %v after the kill; the log:\n%s", sent, n, done, s.log.String())
	}
	mu.Lock()
	defer mu.Unlock()
	duplicates := 0
	for _, at := range received {
		duplicates += len(at) - 1
	}
	t.Logf("killed after %d of %d sent, %d of them not yet recorded SENT; %d sent twice; every notification SENT %v after the kill (lease %v)",
		before, n, inFlight, duplicates, done.Round(100*time.Millisecond), lease)
	if len(received) != n {
		t.Errorf("the gateway received %d of %d notifications", len(received), n)
	}
	if bound := 2 * fanout.DefaultConcurrency; inFlight > bound {
		t.Errorf("%d sends taken by the gateway without their outcome written at the kill, want at most the %d a process may have (fanout.Unwritten)", inFlight, bound)
	}
	if duplicates > inFlight {
		t.Errorf("%d notifications sent twice, want no more than the %d the dead process had sent without recording", duplicates, inFlight)
	}
	// The rows the dead process held are free one lease after the kill; the
	// rest of the 2,000 take a second or two to send.
	if pickUp := lease + 5*time.Second; done > pickUp {
		t.Errorf("the dead process's notifications were SENT %v after the kill, want within %v", done, pickUp)
	}
}

// sentIn counts the notifications store holds as SENT.
func sentIn(t *testing.T, store disburse.Store) int {
	t.Helper()
	ns, err := lists.Notifications(t.Context(), disburse.NewService(store), "")
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, m := range ns {
		if m.Status == disburse.NotificationSent {
			sent++
		}
	}
	return sent
}
