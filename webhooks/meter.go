package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
)

// Meter counts what delivery does, for the operator's metrics
// (docs/operations.md, "Metrics"); neither method may block.
type Meter interface {
	// WebhookAttempt: one attempt to deliver ended so.
	WebhookAttempt(outcome AttemptOutcome)
	// EndpointDisabled: the service disabled an endpoint that kept failing.
	EndpointDisabled()
}

// AttemptOutcome is how one delivery attempt ended.
type AttemptOutcome string

// The outcomes of an attempt.
const (
	AttemptDelivered AttemptOutcome = "delivered" // the endpoint answered 2xx
	AttemptRetrying  AttemptOutcome = "retrying"  // failed; another attempt follows after a backoff
	AttemptGaveUp    AttemptOutcome = "gave_up"   // failed, and the retry window is over: the delivery is FAILED
)

// AttemptOutcomes lists every AttemptOutcome.
var AttemptOutcomes = []AttemptOutcome{AttemptDelivered, AttemptRetrying, AttemptGaveUp}

// attempted counts an attempt and logs a failed one at WARN, by ids, the
// endpoint's status code and the error without the URL: an endpoint's URL
// may carry a secret in its query, and the log is the operator's, not the
// organisation's (which sees the whole error in its delivery's lastError).
func (s *Service) attempted(ctx context.Context, a webhookAttempt, outcome AttemptOutcome, err error) {
	if s.Meter != nil {
		s.Meter.WebhookAttempt(outcome)
	}
	if err == nil {
		return
	}
	s.Log.LogAttrs(ctx, slog.LevelWarn, "webhook attempt failed",
		slog.String("delivery", a.d.ID), slog.String("endpoint", a.d.EndpointID), slog.String("organisation", a.e.OrganisationID),
		slog.String("event", string(a.d.EventType)), slog.Int("attempts", a.d.Attempts), slog.Int("status", a.d.LastStatusCode),
		slog.String("outcome", string(outcome)), slog.String("err", withoutURL(err)))
}

// withoutURL is err's text with the URL of a *url.Error in it (net/http's,
// which quotes the whole URL) left out.
func withoutURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return strings.Replace(err.Error(), ue.Error(), ue.Op+": "+ue.Err.Error(), 1)
	}
	return err.Error()
}
