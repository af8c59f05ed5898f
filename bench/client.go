package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// client calls the API under test over real HTTP on loopback.
type client struct {
	base  string
	admin string // the operator API's token
	http  *http.Client
}

// maxConns bounds the client's connections: the load test's 64 and the
// registrations' workers each keep one alive.
const maxConns = 256

func newClient(base, admin string) *client {
	t := &http.Transport{
		MaxIdleConns: maxConns, MaxIdleConnsPerHost: maxConns, MaxConnsPerHost: maxConns,
		IdleConnTimeout: time.Minute, DisableCompression: true,
	}
	return &client{base: base, admin: admin, http: &http.Client{Transport: t}}
}

func (c *client) close() { c.http.CloseIdleConnections() }

// call sends body (nil: none) with a bearer token, requires status want,
// and decodes the response into out unless out is nil, in which case the
// body is read and dropped. It returns how long the exchange took, from
// sending the request to the last byte of the response.
func (c *client) call(ctx context.Context, method, path, token string, body []byte, want int, out any) (time.Duration, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return 0, fmt.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, msg)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		err = json.NewDecoder(resp.Body).Decode(out)
	}
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %s: reading the response: %w", method, path, err)
	}
	return took, nil
}

// json sends v as a JSON body and decodes the answer into out.
func (c *client) json(ctx context.Context, method, path, token string, v any, want int, out any) error {
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			return err
		}
	}
	_, err := c.call(ctx, method, path, token, body, want, out)
	return err
}
