package usecasetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notifications"
)

// attemptRecord is a notifications.Meter that counts what it is told.
type attemptRecord struct {
	mu       sync.Mutex
	attempts map[string]int // "channel outcome"
}

func (m *attemptRecord) NotificationAttempt(ch disburse.Channel, outcome notifications.AttemptOutcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.attempts[string(ch)+" "+string(outcome)]++
}

// testNotificationAttempts: each attempt is counted once, by its channel
// and outcome: one refused, one refused at the last attempt allowed, one
// accepted.
func testNotificationAttempts(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	m := &attemptRecord{attempts: map[string]int{}}
	f.notes.Meter = m
	p := policy
	p.MaxAttempts = 2
	refuse := sender(func(context.Context, disburse.Notification) error { return errors.New("gateway down") })
	accept := sender(func(context.Context, disburse.Notification) error { return nil })
	f.submitOne(t)
	f.deliver(t, refuse, "a", p, 1)
	f.advance(time.Hour)
	f.deliver(t, refuse, "a", p, 1) // the last attempt: FAILED
	f.submitOne(t)
	f.advance(time.Hour)
	f.deliver(t, accept, "a", p, 1)
	m.mu.Lock()
	defer m.mu.Unlock()
	want := map[string]int{"SMS retrying": 1, "SMS gave_up": 1, "SMS sent": 1}
	if diff := cmp.Diff(want, m.attempts); diff != "" {
		t.Errorf("notification attempts (-want +got):\n%s", diff)
	}
}
