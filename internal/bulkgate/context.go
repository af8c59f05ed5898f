package bulkgate

import "context"

// bulkKey marks a context as bulk work's.
type bulkKey struct{}

// WithBulk marks ctx as that of bulk work admitted by a gate, so that a
// store with one writer can let small writes go first (sqlstore's writer
// lane; docs/operations.md, "Bulk work").
func WithBulk(ctx context.Context) context.Context { return context.WithValue(ctx, bulkKey{}, true) }

// IsBulk reports whether ctx is bulk work's (WithBulk).
func IsBulk(ctx context.Context) bool {
	bulk, _ := ctx.Value(bulkKey{}).(bool)
	return bulk
}
