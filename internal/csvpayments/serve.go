package csvpayments

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/disburse/disburse"
)

// StallTimeout is how long a download of a batch's results may go with
// the client taking none of it before it is cut. The server's write
// timeout bounds a whole answer; a million rows to a client that reads
// slowly may take longer than that, so each write's deadline is moved
// forward instead, as the file goes out (docs/api.md section 4.4).
const StallTimeout = time.Minute

// writeSize is how much of the file goes to the client in one write: the
// unit StallTimeout applies to.
const writeSize = 64 << 10

// Pages hands visit a batch's payments a page at a time
// (export.Payments, for one batch).
type Pages func(visit func([]disburse.Payment) error) error

// ErrCutShort marks a failure to read a page after the answer began: too
// late for an error answer, the caller cuts the answer short
// (panic(http.ErrAbortHandler)), so the client sees a broken download,
// never a file that looks whole.
var ErrCutShort = errors.New("the results were cut short")

// ServeResults answers with the results of pages as a CSV file named
// filename, written and flushed a page at a time (docs/api.md section
// 4.4). It returns an error the caller answers with when nothing has been
// sent yet (the first page's read, which checks the batch, failed), one
// that wraps ErrCutShort when a later page's read failed, and nil when the
// file went out or the client stopped taking it (it hung up, or took
// nothing for StallTimeout): no one is left to tell.
func ServeResults(w http.ResponseWriter, r *http.Request, filename string, pages Pages) error {
	rc := http.NewResponseController(w)
	var out *ResultWriter
	var sendErr error // the client's failure to take the file
	send := func(rows []disburse.Payment) error {
		if out == nil {
			out = startResults(w, rc, filename)
			if sendErr = out.WriteHeader(); sendErr != nil {
				return sendErr
			}
		}
		for _, p := range rows {
			if sendErr = out.Write(p); sendErr != nil {
				return sendErr
			}
		}
		if sendErr = out.Flush(); sendErr == nil {
			sendErr = rc.Flush()
		}
		return sendErr
	}
	err := pages(send)
	switch {
	case err != nil && out == nil:
		return err
	case sendErr != nil || r.Context().Err() != nil:
		return nil
	case err != nil:
		return fmt.Errorf("%w: %w", ErrCutShort, err)
	case out == nil: // a batch with no payments: the header line alone
		_ = send(nil) // a failure is the client's, as above
	}
	return nil
}

// startResults sends the status line and headers of the file and returns
// its writer.
func startResults(w http.ResponseWriter, rc *http.ResponseController, filename string) *ResultWriter {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return NewResultWriter(stallWriter{w: w, rc: rc}, writeSize)
}

// stallWriter moves the connection's write deadline StallTimeout ahead of
// each write.
type stallWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (s stallWriter) Write(b []byte) (int, error) {
	// A writer that cannot take deadlines (a test's recorder) keeps the
	// server's: nothing to move.
	_ = s.rc.SetWriteDeadline(time.Now().Add(StallTimeout))
	return s.w.Write(b)
}
