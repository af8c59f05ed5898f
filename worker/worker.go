// Package worker runs the background loops: settling legs of payees who
// registered during a submit, the reversal sweep and notification delivery. The work itself lives in database tables and the
// use cases; a loop only decides when to look for it.
package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/webhooks"
)

// Loop calls RunOnce every Interval until its context ends. Tests call
// RunOnce directly instead of waiting for the ticker.
type Loop struct {
	Name     string
	Interval time.Duration
	RunOnce  func(ctx context.Context) (int, error)
	Log      *slog.Logger
}

func (l Loop) run(ctx context.Context) {
	t := time.NewTicker(l.Interval)
	defer t.Stop()
	for {
		n, err := l.RunOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			l.Log.ErrorContext(ctx, "worker run failed", "worker", l.Name, "err", err)
		case n > 0:
			l.Log.InfoContext(ctx, "worker run", "worker", l.Name, "items", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Group owns a set of loops: Start launches them, Stop cancels them and waits
// until each has finished the run it was in, so claimed work is completed
// (or released) before the process exits.
type Group struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start runs each loop in its own goroutine until Stop.
func (g *Group) Start(ctx context.Context, loops ...Loop) {
	ctx, g.cancel = context.WithCancel(ctx)
	for _, l := range loops {
		g.wg.Go(func() { l.run(ctx) })
	}
}

// Stop cancels the loops and waits for them.
func (g *Group) Stop() {
	if g.cancel != nil {
		g.cancel()
	}
	g.wg.Wait()
}

// MemberChecks is the loop that settles legs pending to payees who
// registered while their batch was being submitted
// (Service.SettleMembersPending).
func MemberChecks(svc *disburse.Service, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: "member-checks", Interval: interval, RunOnce: svc.SettleMembersPending, Log: log}
}

// TokenPurge is the loop that deletes expired and revoked access tokens
// (auth.Service.PurgeTokens).
func TokenPurge(tokens *auth.Service, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: "token-purge", Interval: interval, RunOnce: tokens.PurgeTokens, Log: log}
}

// IdempotencyPurge is the loop that deletes Idempotency-Keys past their
// day (idempotency.Keys.Purge).
func IdempotencyPurge(keys *idempotency.Keys, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: "idempotency-purge", Interval: interval, RunOnce: keys.Purge, Log: log}
}

// ReversalName is the reversal loop's Name, by which the metrics find it.
const ReversalName = "reversal"

// Reversal is the loop that reverses legs whose reversal period has passed.
func Reversal(svc *disburse.Service, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: ReversalName, Interval: interval, RunOnce: svc.ReverseDue, Log: log}
}

// Delivery is the loop that sends due notifications through n, claiming
// them under owner's name. A run claims again until a claim finds nothing
// due, since a claim may end early when its lease is lost. When ctx ends
// the send in flight still completes and the rest of its claim is released
// (notifications.Service.Deliver), so Group.Stop returns with no work held.
func Delivery(notes *notifications.Service, n notifications.Notifier, owner string, p notifications.Policy, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: "delivery", Interval: interval, Log: log, RunOnce: func(ctx context.Context) (int, error) {
		total := 0
		for {
			n, err := notes.Deliver(ctx, n, owner, p)
			total += n
			if err != nil || n == 0 || ctx.Err() != nil {
				return total, err
			}
		}
	}}
}

// Webhooks is the loop that sends due webhook deliveries through sender,
// claiming them under owner's name; like Delivery it claims again until a
// claim finds nothing due, and on shutdown hands back what it holds.
func Webhooks(hooks *webhooks.Service, sender webhooks.Sender, render webhooks.Renderer, owner string, p webhooks.Policy, interval time.Duration, log *slog.Logger) Loop {
	return Loop{Name: "webhooks", Interval: interval, Log: log, RunOnce: func(ctx context.Context) (int, error) {
		total := 0
		for {
			n, err := hooks.Deliver(ctx, sender, render, owner, p)
			total += n
			if err != nil || n == 0 || ctx.Err() != nil {
				return total, err
			}
		}
	}}
}
