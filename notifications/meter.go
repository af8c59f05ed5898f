package notifications

import "github.com/disburse/disburse"

// Meter counts what delivery does, for the operator's metrics
// (docs/operations.md, "Metrics"); it may not block.
type Meter interface {
	// NotificationAttempt: one attempt to send a notification ended so.
	NotificationAttempt(ch disburse.Channel, outcome AttemptOutcome)
}

// AttemptOutcome is how one attempt to send a notification ended.
type AttemptOutcome string

// The outcomes of a notification's attempt.
const (
	AttemptSent     AttemptOutcome = "sent"
	AttemptRetrying AttemptOutcome = "retrying" // failed; another attempt follows after a backoff
	AttemptGaveUp   AttemptOutcome = "gave_up"  // failed, the last attempt allowed: the notification is FAILED
)

// AttemptOutcomes lists every AttemptOutcome.
var AttemptOutcomes = []AttemptOutcome{AttemptSent, AttemptRetrying, AttemptGaveUp}

// attempted tells the Meter how a notification's attempt ended.
func (s *Service) attempted(ch disburse.Channel, outcome AttemptOutcome) {
	if s.Meter != nil {
		s.Meter.NotificationAttempt(ch, outcome)
	}
}
