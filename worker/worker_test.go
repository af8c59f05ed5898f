package worker

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestGroupStopWaitsForTheRunInProgress: Stop must not return while a loop
// is still inside RunOnce, or a process could exit holding claimed work;
// nor may the loop run again after it. The test runs on synctest's clock:
// an hour of ticks passes after Stop in no time, and any goroutine left
// running would take them.
func TestGroupStopWaitsForTheRunInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs, inside atomic.Int32
		started := make(chan struct{}, 1)
		loop := Loop{Name: "test", Interval: time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			RunOnce: func(ctx context.Context) (int, error) {
				inside.Add(1)
				defer inside.Add(-1)
				runs.Add(1)
				select {
				case started <- struct{}{}:
				default:
				}
				time.Sleep(20 * time.Millisecond) // work that finishes even when asked to stop
				return 1, nil
			}}
		var g Group
		g.Start(context.Background(), loop)
		<-started
		g.Stop()
		if n := inside.Load(); n != 0 {
			t.Fatalf("Stop returned with %d runs in progress", n)
		}
		after := runs.Load()
		time.Sleep(time.Hour)
		synctest.Wait()
		if runs.Load() != after {
			t.Fatal("the loop ran again after Stop")
		}
	})
}

// TestLoopRunsOnEveryTick: a loop looks for work at start and then each interval.
func TestLoopRunsOnEveryTick(t *testing.T) {
	var runs atomic.Int32
	enough := make(chan struct{})
	loop := Loop{Name: "test", Interval: time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RunOnce: func(ctx context.Context) (int, error) {
			if runs.Add(1) == 3 {
				close(enough)
			}
			return 0, nil
		}}
	var g Group
	g.Start(context.Background(), loop)
	select {
	case <-enough:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not run three times")
	}
	g.Stop()
}
