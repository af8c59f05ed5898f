// Package txvalue carries one value out of a transaction: the shape of
// most lookups, whichever port the transaction is (the domain's, the
// webhooks', the back office's), without a variable declared outside the
// transaction to hold the result.
package txvalue

import "context"

// Read runs fn in one transaction of run (a Store's Read) and returns
// fn's value.
func Read[Tx, T any](ctx context.Context, run func(context.Context, func(Tx) error) error, fn func(Tx) (T, error)) (T, error) {
	var v T
	err := run(ctx, func(tx Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	return v, err
}
