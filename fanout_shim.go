package disburse

import "context"

// The webhooks package delivers as notification delivery does (delivery.go).
// Until the fan-out helpers leave the domain for internal/, it reaches them
// through these two names; neither is part of the payout domain.

// FanOut is fanOut (delivery.go) for the webhooks package.
func FanOut[T any](claimed []T, concurrency int, mayStart func() bool, attempt func(T) T,
	record func(outcomes, unattempted []T) (stop bool, err error)) (int, error) {
	return fanOut(claimed, concurrency, mayStart, attempt, record)
}

// Pace returns the wait of a pace of perSecond attempts (delivery.go's
// pace; 0: no limit): it blocks until the next attempt may start, and
// reports false once ctx has ended.
func Pace(perSecond int) func(ctx context.Context) bool {
	return newPace(perSecond).wait
}
