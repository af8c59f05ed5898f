package bulkgate

import (
	"net/http"
	"time"
)

// Deadlines are the HTTP server's ReadTimeout and WriteTimeout, which a
// request's wait at the gate must not use up: Admit counts them again from
// the moment it is admitted. Zero leaves a deadline as the server set it.
type Deadlines struct{ Read, Write time.Duration }

// Admit passes an HTTP request's bulk work through the gate under key (its
// organisation), for the API's and the portal's handlers alike: it waits
// as Acquire does, then counts the server's deadlines d again from now
// (the wait is the service's time, not its client's, and must not turn
// into a failed read of the body or a cut answer), and returns r with its
// context marked as bulk work's (WithBulk) and the release to call once
// the work is done. A nil gate admits at once.
func (g *Gate) Admit(w http.ResponseWriter, r *http.Request, key string, d Deadlines) (*http.Request, func(), error) {
	if g == nil {
		return r, func() {}, nil
	}
	release, err := g.Acquire(r.Context(), key)
	if err != nil {
		return nil, nil, err
	}
	d.restart(w)
	return r.WithContext(WithBulk(r.Context())), release, nil
}

// restart counts the deadlines again from now.
func (d Deadlines) restart(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	now := time.Now()
	if d.Read > 0 {
		_ = rc.SetReadDeadline(now.Add(d.Read)) // unsupported: the deadline stays the server's
	}
	if d.Write > 0 {
		_ = rc.SetWriteDeadline(now.Add(d.Write))
	}
}
