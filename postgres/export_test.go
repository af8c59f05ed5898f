package postgres

import (
	"context"

	"github.com/disburse/disburse/sqlstore"
)

// OpenInChunks opens a store that splits bulk statements into chunks of
// rows and copies every insert however small, so that the suite runs each
// path; the external tests (package postgres_test, kept outside because
// pgtest imports this package) reach it here.
func OpenInChunks(ctx context.Context, url string, rows int) (*sqlstore.Store, error) {
	return open(ctx, url, Engine{bulkRows: rows, copyRows: 1})
}

// NewCopyReader is newCopyReader, for the test that copies its rows into
// a server.
var NewCopyReader = newCopyReader
