package usecasetest

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/webhooks"
)

// hookMeter is a webhooks.Meter that counts what it is told.
type hookMeter struct {
	mu       sync.Mutex
	attempts map[webhooks.AttemptOutcome]int
	disabled int
}

func (m *hookMeter) WebhookAttempt(o webhooks.AttemptOutcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.attempts == nil {
		m.attempts = map[webhooks.AttemptOutcome]int{}
	}
	m.attempts[o]++
}

func (m *hookMeter) EndpointDisabled() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.disabled++
}

func (m *hookMeter) check(t *testing.T, want map[webhooks.AttemptOutcome]int, disabled int) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if diff := cmp.Diff(want, m.attempts); diff != "" {
		t.Errorf("webhook attempts by outcome (-want +got):\n%s", diff)
	}
	if m.disabled != disabled {
		t.Errorf("%d endpoints disabled, want %d", m.disabled, disabled)
	}
}

// testWebhookFailuresCounted: an endpoint on 127.0.0.1 that answers 500,
// and one that refuses the connection, each with a secret in its URL's
// query: every attempt is counted by its outcome (retrying, then gave_up
// once the retry window is over), and each failure is logged at WARN with
// the delivery, the endpoint and the status code, never the URL's path
// or query (docs/operations.md, "Metrics").
func testWebhookFailuresCounted(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	meter := &hookMeter{}
	var logged logs.Buffer
	f.hooks.Meter, f.hooks.Log = meter, slog.New(slog.NewJSONHandler(&logged, nil))
	down := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/hook?token=s3cret-refused"
	ln.Close()
	e := f.endpoint(t, down.URL+"/hook?token=s3cret-500", "batch.submitted")
	e2 := f.endpoint(t, refused, "batch.submitted")
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 2)
	meter.check(t, map[webhooks.AttemptOutcome]int{webhooks.AttemptRetrying: 2}, 0)

	// Past the retry window, the next failure gives up.
	d := f.deliveries(t, e)[0]
	f.now = d.EventAt.Add(webhookPolicy.RetryFor)
	f.sendWebhooks(t, "a", 2)
	meter.check(t, map[webhooks.AttemptOutcome]int{webhooks.AttemptRetrying: 2, webhooks.AttemptGaveUp: 2}, 0)

	warned := logRecords(t, logged.String(), "webhook attempt failed")
	if len(warned) != 4 {
		t.Fatalf("%d failure lines, want 4", len(warned))
	}
	statuses := map[string][]any{}
	for _, rec := range warned {
		if rec["level"] != "WARN" || rec["delivery"] == "" || rec["organisation"] != f.org || rec["err"] == "" {
			t.Errorf("failure line %v", rec)
		}
		statuses[rec["endpoint"].(string)] = append(statuses[rec["endpoint"].(string)], rec["status"], rec["outcome"])
	}
	want := map[string][]any{
		e.ID:  {float64(500), "retrying", float64(500), "gave_up"},
		e2.ID: {float64(0), "retrying", float64(0), "gave_up"},
	}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("status and outcome by endpoint (-want +got):\n%s", diff)
	}
	text := logged.String()
	// The dial error names the host and port, which is no secret; the
	// path and query are the URL's own.
	if strings.Contains(text, "s3cret") || strings.Contains(text, "/hook") {
		t.Errorf("the log holds an endpoint's URL:\n%s", text)
	}
}

// logRecords are the JSON log's lines with the message msg.
func logRecords(t *testing.T, log, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(log) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}
