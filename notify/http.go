package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/disburse/disburse"
)

// HTTP posts each message as JSON to a gateway URL. Any non-2xx answer or a
// timeout is an error, so the worker retries it later.
type HTTP struct {
	URL    string
	Client *http.Client
	// Timeout caps one attempt besides the deadline of Send's context (the
	// delivery worker's notifications.Policy.SendTimeout), whichever ends first.
	// Zero: the context's deadline alone, or DefaultTimeout if it has none.
	Timeout time.Duration
}

// NewHTTP returns the provider for a gateway at url with a client of its
// own that keeps up to conns connections to it open between sends: the
// delivery worker has that many sends in flight at once, and a connection
// closed after each send would cost a new one (and a TLS handshake) for
// every message.
func NewHTTP(url string, conns int) HTTP {
	return HTTP{URL: url, Client: &http.Client{Transport: keepAlive(conns)}}
}

// keepAlive is a transport like http.DefaultTransport's that keeps up to
// conns idle connections per host rather than two.
func keepAlive(conns int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(t.MaxIdleConns, conns)
	t.MaxIdleConnsPerHost = max(conns, 2)
	return t
}

// DefaultTimeout bounds an attempt whose context has no deadline and whose
// HTTP sets no Timeout.
const DefaultTimeout = 10 * time.Second

// message is what the gateway receives. The id lets it drop duplicates: a
// message may be sent again if a process dies after sending, before recording.
type message struct {
	ID        string `json:"id"`
	Channel   string `json:"channel"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
}

// Send posts n to the gateway and gives up when ctx ends.
func (h HTTP) Send(ctx context.Context, n disburse.Notification) error {
	timeout := h.Timeout
	if _, ok := ctx.Deadline(); !ok && timeout <= 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	body, err := json.Marshal(message{ID: n.ID, Channel: string(n.Channel), Recipient: n.Recipient, Message: n.Message})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", n.ID)
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("notify gateway: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("notify gateway answered %s", resp.Status)
	}
	return nil
}
