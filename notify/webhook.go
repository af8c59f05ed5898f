package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/disburse/disburse/webhooks"
)

// Webhook posts signed webhook messages to organisations' endpoints, with
// the Standard Webhooks headers. Unless AllowPrivate, it refuses to connect
// to an address that is not public, whatever the URL's name resolves to at
// the moment of sending (server-side request forgery), and it follows no
// redirect: a 3xx is a failed attempt.
type Webhook struct {
	AllowPrivate bool
	client       *http.Client
}

// idleConnsPerEndpoint bounds the connections kept open to one endpoint
// between attempts: above the attempts a webhook worker has in flight at
// once, so that those connections are reused rather than closed after
// each attempt. Only connections that were needed at once are ever kept.
const idleConnsPerEndpoint = 128

// NewWebhook returns a sender with its own client and transport.
func NewWebhook(allowPrivate bool) *Webhook {
	w := &Webhook{AllowPrivate: allowPrivate}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: w.checkAddress}
	w.client = &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: idleConnsPerEndpoint, IdleConnTimeout: 90 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return w
}

// ErrPrivateAddress is a refused connection to an address that is not
// public (webhooks.PublicAddr).
var ErrPrivateAddress = errors.New("the endpoint resolves to a private, loopback or link-local address")

// checkAddress runs before each connection, on the address actually dialled.
func (w *Webhook) checkAddress(_, address string, _ syscall.RawConn) error {
	if w.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !webhooks.PublicAddr(ap.Addr()) {
		return ErrPrivateAddress
	}
	return nil
}

// Send posts m and gives up when ctx ends. Anything but a 2xx is an error.
func (w *Webhook) Send(ctx context.Context, m webhooks.Message) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Disburse-Webhooks/1")
	req.Header.Set("webhook-id", m.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(m.Timestamp.Unix(), 10))
	req.Header.Set("webhook-signature", m.Signature)
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook endpoint: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("webhook endpoint answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}
