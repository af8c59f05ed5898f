package backoffice

import (
	"context"
	"time"

	"github.com/disburse/disburse"
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
// database so that a page can poll it on whichever replica answers.
type Upload struct {
	ID             string
	OrganisationID string
	BatchID        string
	Phase          UploadPhase
	Done, Total    int64 // units of the phase: bytes, then rows
	Rows           int64 // rows read so far
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

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

// UploadKeep is how long an upload's progress is kept after its last change.
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

// SaveUpload writes an upload's progress.
func (s *Service) SaveUpload(ctx context.Context, u *Upload) error {
	u.UpdatedAt = s.now()
	return s.Store.WritePortal(ctx, func(tx Tx) error { return tx.UpdateUpload(ctx, *u) })
}

// ScopedUpload returns the upload id when it is within scope.
func (s *Service) ScopedUpload(ctx context.Context, scope, id string) (Upload, error) {
	return read(ctx, s.Store, func(tx Tx) (Upload, error) {
		return scopedRow(ctx, tx, scope, id, "upload", tx.Upload, func(u Upload) string { return u.OrganisationID })
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
