package sqlstore

import (
	"fmt"
	"iter"
	"strings"
)

// bulkChunk is one statement of a bulk query (tx.bulk, tx.bulkLater): the
// query with the dialect's row source for one chunk of rows in place of
// the @rows marker, still in ? placeholders, and its arguments.
type bulkChunk struct {
	query string
	args  []any
	last  bool // the chunk that holds the last row
}

// chunks cuts query at its @rows marker and returns the chunks of its n
// rows of cols, MaxBulkRows at a time. args are the query's own
// arguments, in order; each chunk's row source arguments are spliced in
// where the marker stands. The sequence stops at the first chunk the
// dialect cannot build, which it yields with the error.
func (t *tx) chunks(query string, args []any, n int, cols []Column) (iter.Seq2[bulkChunk, error], error) {
	head, tail, ok := strings.Cut(query, rowsMarker)
	if !ok {
		return nil, fmt.Errorf("sqlstore: bulk query without %s", rowsMarker)
	}
	split := strings.Count(head, "?")
	size := max(t.e.MaxBulkRows(), 1)
	return func(yield func(bulkChunk, error) bool) {
		for start := 0; start < n; start += size {
			m := min(size, n-start)
			shifted := make([]Column, len(cols))
			for i, c := range cols {
				shifted[i] = c.shift(start)
			}
			src, srcArgs, err := t.e.Rows(shifted, m)
			if err != nil {
				yield(bulkChunk{}, err)
				return
			}
			all := make([]any, 0, len(args)+len(srcArgs))
			all = append(append(append(all, args[:split]...), srcArgs...), args[split:]...)
			if !yield(bulkChunk{query: head + src + tail, args: all, last: start+m >= n}, nil) {
				return
			}
		}
	}, nil
}
