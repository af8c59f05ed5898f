package txvalue

import (
	"context"
	"errors"
	"testing"
)

func TestReadCarriesTheValueAndTheError(t *testing.T) {
	run := func(ctx context.Context, fn func(string) error) error { return fn("tx") }
	v, err := Read(context.Background(), run, func(tx string) (int, error) { return len(tx), nil })
	if v != 2 || err != nil {
		t.Errorf("Read = %d, %v; want 2, nil", v, err)
	}
	failed := errors.New("refused")
	refuse := func(ctx context.Context, fn func(string) error) error { return failed }
	if _, err := Read(context.Background(), refuse, func(string) (int, error) { return 1, nil }); !errors.Is(err, failed) {
		t.Errorf("Read on a refused transaction: %v", err)
	}
}
