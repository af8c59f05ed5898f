package portal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// maxUploadBytes bounds a CSV upload: a million payments of long names
// and external ids stay well inside it.
const maxUploadBytes = 512 << 20

// maxShownFailures bounds the failures an upload's page lists, the ones
// the upload keeps; all of them are counted.
const maxShownFailures = backoffice.UploadFailuresKept

// addChunk is how many rows the second pass hands the service at a time
// (fewer when the service's limit per request is lower), all in the one
// transaction of the add: the upload's peak memory follows it, while its
// time hardly does (docs/benchmarks.md, "The portal"). The first pass
// checks a request's worth at a time, so that an external id used twice
// within one is refused before anything is added.
const addChunk = 20_000

// progressEvery is how often at most an upload writes its progress
// between phases; the page polls it about as often.
const progressEvery = 300 * time.Millisecond

// uploadResult is what the batch page shows after an upload: its answer,
// or, on the page drawn again, what the batch's last upload kept.
type uploadResult struct {
	Rows         int64 // the rows read, and added when nothing failed
	Lines        int64 // the file's lines, which its failures are in
	Failures     []csvpayments.Failure
	FailureCount int64
	Truncated    bool
	At           time.Time // when a kept upload ended; zero on its own answer
}

// upload adds the payments of a CSV file to a DRAFT batch, all or nothing
// (docs/portal.md, "Uploading payments"). The file is streamed to a
// temporary file as it arrives (never held in memory), then read twice, a
// chunk of rows at a time: first every row is checked by the same domain
// checks as the API's add-payments (Service.CheckPayments), and the count
// of rows against the batch's limit; only if all pass is it read again and
// added, in one transaction (Service.AddPaymentChunks, which checks again
// what needs the stored batch): a failure there adds nothing either. How
// far it has got is written to the database as it goes, for the page to
// poll (uploadStatus). The checks and the add wait their turn at the
// process's bulk gate, as the API's add does (bulk.go).
func (p *portal) upload(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	b, err := p.svc.Batch(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return err
	}
	o, _, err := organisations.Get(r.Context(), p.svc, org)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	prog := &progress{p: p, ctx: r.Context(), u: backoffice.Upload{OrganisationID: org, BatchID: b.ID,
		Phase: backoffice.UploadReceiving, Total: max(r.ContentLength, 0)}}
	var res *uploadResult
	defer func() { prog.finish(res) }()
	spool, size, lines, err := spoolUpload(r, prog)
	if err != nil {
		return p.batchPage(w, r, http.StatusBadRequest, page{Errors: []string{err.Error()}})
	}
	defer spool.Close()
	// The gate is passed once the file is in: a browser's upload, however
	// slow, holds no place of the process's bulk work, and the file waits
	// on disk, not in memory, while the checks and the add wait their turn.
	r, release, err := p.bulk(w, r, org)
	if err != nil {
		return err
	}
	defer release()

	chunk := p.svc.Limits.MaxPaymentsPerRequest
	if chunk <= 0 {
		chunk = disburse.DefaultLimits.MaxPaymentsPerRequest
	}
	res, err = p.checkUpload(spool, size, chunk, o.ReferralsEnabled, prog)
	res.Lines = lines
	if err != nil {
		return err
	}
	if limit := p.svc.Limits.MaxPaymentsPerBatch; res.FailureCount == 0 && b.Summary.PaymentsCount+res.Rows > limit {
		res.add(csvpayments.Failure{Line: 1, Column: "file", Message: fmt.Sprintf(
			"the batch holds %d payments and the file %d: a batch holds at most %d", b.Summary.PaymentsCount, res.Rows, limit)})
	}
	if res.FailureCount > 0 {
		return p.batchPage(w, r, http.StatusBadRequest, page{Upload: res})
	}
	err = p.addUpload(r, org, b.ID, spool, min(chunk, addChunk), res, prog)
	if errors.Is(err, errStop) {
		return p.batchPage(w, r, http.StatusBadRequest, page{Upload: res, Errors: []string{"Nothing was added."}})
	}
	if err != nil {
		return err
	}
	return p.batchPage(w, r, http.StatusOK, page{Upload: res})
}

// checkUpload holds every row of the spooled file to the payments' rules,
// chunk rows at a time, and returns the rows and their failures.
func (p *portal) checkUpload(spool io.ReadSeeker, size int64, chunk int, referrals bool, prog *progress) (*uploadResult, error) {
	res := &uploadResult{}
	prog.set(backoffice.UploadChecking, 0, size, 0)
	err := eachChunk(spool, chunk, res, func(rows *csvpayments.Reader, chunk []csvpayments.Row) error {
		prog.set(backoffice.UploadChecking, rows.Offset(), size, res.Rows)
		err := p.svc.CheckPayments(csvpayments.Payments(chunk), referrals)
		var e *disburse.Error
		if errors.As(err, &e) && e.Code == disburse.CodeInvalid {
			res.add(csvpayments.Placed(e, chunk)...)
			return nil
		}
		return err
	})
	if err == nil && res.FailureCount == 0 && res.Rows == 0 {
		res.add(csvpayments.Failure{Line: 1, Column: "file", Message: "the file holds no payments"})
	}
	return res, err
}

// addUpload adds the checked file's rows to the batch in one transaction,
// handing them over chunk rows at a time. A chunk the service refuses
// stops it with errStop, its failures in res, and nothing is added.
func (p *portal) addUpload(r *http.Request, org, batchID string, spool io.ReadSeeker, chunk int, res *uploadResult, prog *progress) error {
	var last []csvpayments.Row // the chunk handed over last: the one a failure is of
	prog.set(backoffice.UploadAdding, 0, res.Rows, res.Rows)
	prog.aside = true // from here the add's transaction holds the writer
	defer func() { prog.aside = false }()
	_, _, err := p.svc.AddPaymentChunks(r.Context(), org, batchID, func(yield func([]disburse.PaymentInput) error) error {
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		handed := 0
		prog.set(backoffice.UploadAdding, 0, res.Rows, res.Rows)
		return eachChunk(spool, chunk, &uploadResult{}, func(_ *csvpayments.Reader, rows []csvpayments.Row) error {
			last = rows
			if err := yield(csvpayments.Payments(rows)); err != nil {
				return err
			}
			handed += len(rows)
			prog.set(backoffice.UploadAdding, int64(handed), res.Rows, res.Rows)
			return nil
		})
	})
	var e *disburse.Error
	if errors.As(err, &e) && e.Code == disburse.CodeInvalid {
		res.add(csvpayments.Placed(e, last)...)
		return errStop
	}
	return err
}

var errStop = errors.New("stop")

// eachChunk reads the CSV from its start a chunk of n rows at a time and
// calls fn with each. The header's failures and the lines that are not
// rows go to res, which counts every line read.
func eachChunk(f io.Reader, n int, res *uploadResult, fn func(*csvpayments.Reader, []csvpayments.Row) error) error {
	rows, failures := csvpayments.Open(f)
	res.add(failures...)
	if rows == nil {
		return nil
	}
	for {
		chunk, notRows, err := rows.Next(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		res.Rows += int64(len(chunk) + len(notRows))
		res.add(notRows...)
		if len(chunk) > 0 {
			if err := fn(rows, chunk); err != nil {
				return err
			}
		}
	}
}

// spoolUpload copies the multipart part named file to an unlinked
// temporary file and returns it, positioned at its start, its size and
// its lines. A part named upload before it (the page's upload id) starts
// the progress the page polls; without one the upload gets an id of its
// own, which keeps its failures all the same.
func spoolUpload(r *http.Request, prog *progress) (f *os.File, size, lines int64, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, 0, 0, errors.New("send the file as a form upload (multipart/form-data)")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, 0, 0, errors.New("choose a CSV file to upload")
		}
		if err != nil {
			return nil, 0, 0, errors.New("the upload was cut off or is too large")
		}
		switch part.FormName() {
		case "upload":
			id, _ := io.ReadAll(io.LimitReader(part, 64))
			prog.start(string(id))
			continue
		case "file":
			prog.start("")
		default:
			continue
		}
		f, err := os.CreateTemp("", "disburse-upload-*.csv")
		if err != nil {
			return nil, 0, 0, err
		}
		_ = os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
		counted := &countingReader{r: part, prog: prog}
		n, err := io.Copy(f, counted)
		if err != nil {
			f.Close()
			return nil, 0, 0, errors.New("the upload was cut off or is too large")
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, 0, 0, err
		}
		return f, n, counted.lines(), nil
	}
}

// countingReader reports the bytes of the file received so far, and
// counts its lines: what a failure's message is true of, whatever the CSV
// reader made of them (a stray quote takes many lines into one field).
type countingReader struct {
	r        io.Reader
	n        int64
	newlines int64
	last     byte
	prog     *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.newlines += int64(bytes.Count(b[:n], []byte{'\n'}))
		c.last = b[n-1]
	}
	c.n += int64(n)
	c.prog.set(backoffice.UploadReceiving, c.n, c.prog.u.Total, 0)
	return n, err
}

// lines counts the last line whether or not a newline ends it.
func (c *countingReader) lines() int64 {
	if c.n > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// progress writes an upload's progress to the database: at each change of
// phase, and within a phase at most every progressEvery. It is only shown,
// never relied on: a failure to write it stops the writing, not the
// upload.
//
// While the payments go in, the upload's own transaction holds the
// writer (on SQLite, the one writer connection), so the progress of that
// phase is written aside (aside), one write at a time, never waited for
// there: on SQLite it lands when the add commits.
type progress struct {
	p     *portal
	ctx   context.Context
	u     backoffice.Upload
	on    bool
	tried bool // start failed: it is not tried again
	last  time.Time

	aside   bool           // write aside: the caller holds the writer
	writing atomic.Bool    // a write aside is in flight
	written sync.WaitGroup // the writes aside, which finish waits for
}

// start records the upload under id, the page's; when that is not an
// upload id, or the database holds it already (a page sent twice), under
// an id of its own, which no page polls but which keeps the upload's
// failures for the batch's page. Once started it does nothing.
func (g *progress) start(id string) {
	if g.on || g.tried {
		return
	}
	if !disburse.ValidID(id) {
		id = disburse.NewID()
	}
	g.u.ID = id
	u, err := g.p.office.StartUpload(g.ctx, g.u)
	if errors.Is(err, disburse.ErrDuplicate) {
		g.u.ID = disburse.NewID()
		u, err = g.p.office.StartUpload(g.ctx, g.u)
	}
	if err != nil {
		g.tried = true
		g.p.log.Warn("portal: upload progress", "err", err)
		return
	}
	g.u, g.on, g.last = u, true, time.Now()
}

func (g *progress) set(phase backoffice.UploadPhase, done, total, rows int64) {
	if !g.on {
		return
	}
	changed := phase != g.u.Phase
	g.u.Phase, g.u.Done, g.u.Total = phase, done, total
	g.u.Rows = max(g.u.Rows, rows)
	if changed || time.Since(g.last) >= progressEvery {
		g.save()
	}
}

func (g *progress) save() {
	g.last = time.Now()
	if g.aside {
		if !g.writing.CompareAndSwap(false, true) {
			return // one in flight already: the next save brings it up to date
		}
		u := g.u
		g.written.Add(1)
		go func() {
			defer g.written.Done()
			defer g.writing.Store(false)
			if err := g.p.office.SaveUpload(g.ctx, &u); err != nil {
				g.p.log.Warn("portal: upload progress", "err", err)
			}
		}()
		return
	}
	if err := g.p.office.SaveUpload(g.ctx, &g.u); err != nil {
		g.on = false
		g.p.log.Warn("portal: upload progress", "err", err)
	}
}

// finish marks the upload answered, whatever the answer, once the writes
// aside are in: the last word is done, with res's failures (nil: the file
// was not read).
func (g *progress) finish(res *uploadResult) {
	g.written.Wait()
	g.aside = false
	if !g.on {
		return
	}
	g.u.Phase = backoffice.UploadDone
	if res != nil {
		g.u.Lines, g.u.FailureCount, g.u.Failures = res.Lines, res.FailureCount, res.Failures
	}
	g.save()
}

// uploadStatus shows how far an upload has got: the page polls it (htmx)
// while the upload is read; any replica can answer, since the progress is
// in the database.
func (p *portal) uploadStatus(w http.ResponseWriter, r *http.Request) error {
	u, err := p.office.ScopedUpload(r.Context(), user(r).Scope(), r.PathValue("id"))
	if err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "upload", page{Title: "Upload", Progress: &u})
	return nil
}

// keptUpload is what the batch's last upload found wrong, which its page
// shows again until the next upload; nil when it found nothing wrong or
// has not ended.
func (p *portal) keptUpload(r *http.Request, scope, batchID string) (*uploadResult, error) {
	u, err := p.office.LastUpload(r.Context(), scope, batchID)
	if disburse.ErrorCode(err) == disburse.CodeNotFound {
		return nil, nil
	}
	if err != nil || u.Phase != backoffice.UploadDone || u.FailureCount == 0 {
		return nil, err
	}
	return &uploadResult{Rows: u.Rows, Lines: u.Lines, Failures: u.Failures, FailureCount: u.FailureCount,
		Truncated: u.FailureCount > int64(len(u.Failures)), At: u.UpdatedAt}, nil
}

// Shown is how many failures the page lists.
func (res *uploadResult) Shown() int64 { return int64(len(res.Failures)) }

func (res *uploadResult) add(failures ...csvpayments.Failure) {
	for _, f := range failures {
		res.FailureCount++
		if len(res.Failures) < maxShownFailures {
			res.Failures = append(res.Failures, f)
		} else {
			res.Truncated = true
		}
	}
}
