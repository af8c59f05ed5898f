package backoffice

import (
	"context"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/internal/text"
)

// UploadPhase is how far the portal has got with a CSV upload.
type UploadPhase string

// The phases of an upload, in the order it goes through them.
const (
	UploadReceiving UploadPhase = "RECEIVING" // the file is arriving; Done and Total count bytes
	UploadChecking  UploadPhase = "CHECKING"  // every row is read and checked; Done and Total count bytes of the file
	UploadAdding    UploadPhase = "ADDING"    // the rows are added; Done and Total count rows
	UploadDone      UploadPhase = "DONE"      // answered, whether added or refused
)

// Upload is the progress of one CSV upload through the portal, kept in the
// database so that a page can poll it on whichever replica answers, and,
// once it is done, what it found wrong, which the batch's page shows until
// the batch's next upload.
type Upload struct {
	ID             string
	OrganisationID string
	BatchID        string
	Phase          UploadPhase
	Done, Total    int64 // units of the phase: bytes, then rows
	Rows           int64 // rows read so far
	CreatedAt      time.Time
	UpdatedAt      time.Time

	Lines        int64                 // the file's lines, once it is in
	FailureCount int64                 // every failure found
	Failures     []csvpayments.Failure // the first of them, at most UploadFailuresKept
}

// UploadFailuresKept bounds the failures an upload keeps, the first ones
// found; it counts them all.
const UploadFailuresKept = 1000

// Percent is how far the phase has got, 0 to 100.
func (u Upload) Percent() int {
	if u.Phase == UploadDone {
		return 100
	}
	if u.Total <= 0 {
		return 0
	}
	return int(min(100, 100*u.Done/u.Total))
}

// UploadKeep is how long an upload's progress is kept after its last
// change; a draft batch's last upload is kept longer while it failed, so
// that the batch's page still shows why (Tx.DeleteOldUploads).
const UploadKeep = 24 * time.Hour

// StartUpload records the start of an upload into a batch the caller has
// already found to be the organisation's. An id already taken is
// ErrDuplicate: the caller goes on without showing progress.
func (s *Service) StartUpload(ctx context.Context, u Upload) (Upload, error) {
	if !disburse.ValidID(u.ID) {
		return Upload{}, disburse.Invalid("Upload", u.ID, "upload must be an upload id")
	}
	u.CreatedAt = s.now()
	u.UpdatedAt = u.CreatedAt
	return u, s.Store.WritePortal(ctx, func(tx Tx) error { return tx.InsertUpload(ctx, u) })
}

// SaveUpload writes an upload's progress, and its failures: the first
// UploadFailuresKept, each value cut as a failure's fieldValue is.
func (s *Service) SaveUpload(ctx context.Context, u *Upload) error {
	u.UpdatedAt = s.now()
	kept := *u
	kept.Failures = make([]csvpayments.Failure, min(len(u.Failures), UploadFailuresKept))
	for i := range kept.Failures {
		kept.Failures[i] = u.Failures[i]
		kept.Failures[i].Value = text.Short(u.Failures[i].Value)
	}
	return s.Store.WritePortal(ctx, func(tx Tx) error { return tx.UpdateUpload(ctx, kept) })
}

// ScopedUpload returns the upload id when it is within scope.
func (s *Service) ScopedUpload(ctx context.Context, scope, id string) (Upload, error) {
	return read(ctx, s.Store, func(tx Tx) (Upload, error) {
		return scopedRow(ctx, tx, scope, id, "upload", tx.Upload, func(u Upload) string { return u.OrganisationID })
	})
}

// LastUpload returns the last upload to the batch batchID, when the batch
// is within scope: the one whose failures its page shows.
func (s *Service) LastUpload(ctx context.Context, scope, batchID string) (Upload, error) {
	return read(ctx, s.Store, func(tx Tx) (Upload, error) {
		if _, err := scopedRow(ctx, tx, scope, batchID, "batch", tx.Batch, batchOrganisation); err != nil {
			return Upload{}, err
		}
		u, err := tx.LastUpload(ctx, batchID)
		return u, disburse.OrNotFound(err, "upload")
	})
}

// PurgeUploads deletes the progress of uploads unchanged for UploadKeep
// and returns how many it deleted.
func (s *Service) PurgeUploads(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		var n int
		before := s.now().Add(-UploadKeep)
		err := s.Store.WritePortal(ctx, func(tx Tx) (err error) {
			n, err = tx.DeleteOldUploads(ctx, before, purgeBatchSize)
			return err
		})
		total += n
		if err != nil || n < purgeBatchSize {
			return total, err
		}
	}
	return total, nil
}
