package portal

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/disburse/disburse"
)

// maxUploadBytes bounds a CSV upload: a million payments of long names
// and external ids stay well inside it.
const maxUploadBytes = 512 << 20

// maxShownFailures bounds the failures an upload's page lists; all of
// them are counted.
const maxShownFailures = 1000

// uploadResult is what the batch page shows after an upload.
type uploadResult struct {
	Rows         int
	Failures     []uploadFailure
	FailureCount int
	Truncated    bool
}

// uploadFailure is one failure, placed by line and column of the file.
type uploadFailure struct {
	Line    int
	Column  string
	Value   string
	Message string
}

// columns maps a CSV header (any case) to the payment field it fills,
// and the domain's field names back to the header a user wrote.
var columns = map[string]string{
	"msisdn": "Msisdn", "amount": "Amount", "firstname": "Firstname", "lastname": "Lastname",
	"externalid": "ExternalId", "referralamount": "ReferralAmount", "referralmsisdn": "ReferralMsisdn",
}

// upload adds the payments of a CSV file to a DRAFT batch. The file is
// streamed to a temporary file as it arrives (never held in memory), then
// read twice: first every row is checked, a chunk at a time, by the same
// domain checks as the API's add-payments (Service.CheckPayments), and
// only if all pass is it read again and added a chunk at a time
// (Service.AddPayments, which checks again what needs the stored batch).
func (p *portal) upload(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	b, err := p.svc.Batch(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return err
	}
	o, _, err := p.svc.Organisation(r.Context(), org)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	spool, err := spoolUpload(r)
	if err != nil {
		return p.batchPage(w, r, http.StatusBadRequest, page{Errors: []string{err.Error()}})
	}
	defer spool.Close()

	chunk := p.svc.Limits.MaxPaymentsPerRequest
	if chunk <= 0 {
		chunk = disburse.DefaultLimits.MaxPaymentsPerRequest
	}
	res := &uploadResult{}
	err = readChunks(spool, chunk, res, func(rows []disburse.PaymentInput, lines []int) error {
		err := p.svc.CheckPayments(rows, o.ReferralsEnabled)
		var e *disburse.Error
		if errors.As(err, &e) && e.Code == disburse.CodeInvalid {
			res.addFailures(e, lines)
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if res.FailureCount == 0 && res.Rows == 0 {
		res.add(uploadFailure{Line: 1, Column: "file", Message: "the file holds no payments"})
	}
	if res.FailureCount > 0 {
		return p.batchPage(w, r, http.StatusBadRequest, page{Upload: res})
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	added := 0
	err = readChunks(spool, chunk, &uploadResult{}, func(rows []disburse.PaymentInput, lines []int) error {
		clear := false
		_, _, err := p.svc.AddPayments(r.Context(), org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: rows})
		var e *disburse.Error
		if errors.As(err, &e) && e.Code == disburse.CodeInvalid {
			res.addFailures(e, lines)
			return errStop
		}
		if err == nil {
			added += len(rows)
		}
		return err
	})
	if errors.Is(err, errStop) {
		msg := "Nothing was added."
		if added > 0 {
			msg = fmt.Sprintf("The first %d rows were added before these failures; delete them or upload the rest.", added)
		}
		return p.batchPage(w, r, http.StatusBadRequest, page{Upload: res, Errors: []string{msg}})
	}
	if err != nil {
		return err
	}
	return p.batchPage(w, r, http.StatusOK, page{Upload: res})
}

var errStop = errors.New("stop")

// spoolUpload copies the multipart part named file to an unlinked
// temporary file and returns it, positioned at its start.
func spoolUpload(r *http.Request) (*os.File, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errors.New("send the file as a form upload (multipart/form-data)")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, errors.New("choose a CSV file to upload")
		}
		if err != nil {
			return nil, errors.New("the upload was cut off or is too large")
		}
		if part.FormName() != "file" {
			continue
		}
		f, err := os.CreateTemp("", "disburse-upload-*.csv")
		if err != nil {
			return nil, err
		}
		_ = os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
		if _, err := io.Copy(f, part); err != nil {
			f.Close()
			return nil, errors.New("the upload was cut off or is too large")
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
}

// readChunks reads the CSV in chunks of n payments and calls fn with each
// and the file line each row began on. Rows it cannot read (a bad header,
// a wrong number of fields, broken quoting) are failures in res.
func readChunks(f io.Reader, n int, res *uploadResult, fn func([]disburse.PaymentInput, []int) error) error {
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		res.add(uploadFailure{Line: 1, Column: "header", Message: "the header line cannot be read: " + csvProblem(err)})
		return nil
	}
	fields := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		field, ok := columns[name]
		switch {
		case !ok:
			res.add(uploadFailure{Line: 1, Column: h, Value: h, Message: "unknown column; the columns are msisdn, amount, firstname, lastname, externalId, referralAmount, referralMsisdn"})
		case seen[field]:
			res.add(uploadFailure{Line: 1, Column: h, Value: h, Message: "this column appears twice"})
		}
		seen[field], fields[i] = true, field
	}
	for _, need := range []string{"Msisdn", "Amount"} {
		if !seen[need] {
			res.add(uploadFailure{Line: 1, Column: "header", Message: "the header has no " + strings.ToLower(need) + " column"})
		}
	}
	if res.FailureCount > 0 {
		return nil
	}
	rows := make([]disburse.PaymentInput, 0, min(n, 10_000))
	lines := make([]int, 0, min(n, 10_000))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			res.Rows++
			res.add(uploadFailure{Line: line, Column: "row", Message: csvProblem(err)})
			continue
		}
		res.Rows++
		if len(rec) != len(fields) {
			res.add(uploadFailure{Line: line, Column: "row", Message: fmt.Sprintf("the row has %d fields, the header %d", len(rec), len(fields))})
			continue
		}
		var in disburse.PaymentInput
		for i, v := range rec {
			v = strings.TrimSpace(v)
			switch fields[i] {
			case "Msisdn":
				in.Msisdn = v
			case "Amount":
				in.Amount = disburse.Number(v)
			case "Firstname":
				in.Firstname = v
			case "Lastname":
				in.Lastname = v
			case "ExternalId":
				in.ExternalID = v
			case "ReferralAmount":
				in.ReferralAmount = disburse.Number(v)
			case "ReferralMsisdn":
				in.ReferralMsisdn = v
			}
		}
		rows, lines = append(rows, in), append(lines, line)
		if len(rows) == n {
			if err := fn(rows, lines); err != nil {
				return err
			}
			rows, lines = rows[:0], lines[:0]
		}
	}
	if len(rows) > 0 {
		return fn(rows, lines)
	}
	return nil
}

// csvProblem says what encoding/csv found, without its line prefix.
func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// addFailures places a validation error's failures by line and column:
// a payment's index is its row in the chunk.
func (res *uploadResult) addFailures(e *disburse.Error, lines []int) {
	for _, f := range e.Fields {
		uf := uploadFailure{Column: csvColumn(f.FieldName), Value: f.FieldValue, Message: f.ErrorMessage}
		if f.Index != nil && *f.Index < len(lines) {
			uf.Line = lines[*f.Index]
		}
		res.add(uf)
	}
}

func (res *uploadResult) add(f uploadFailure) {
	res.FailureCount++
	if len(res.Failures) < maxShownFailures {
		res.Failures = append(res.Failures, f)
	} else {
		res.Truncated = true
	}
}

// csvColumn is the CSV header of a domain field name: ExternalId is externalId.
func csvColumn(field string) string {
	if field == "" {
		return ""
	}
	return strings.ToLower(field[:1]) + field[1:]
}
