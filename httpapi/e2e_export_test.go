package httpapi_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/internal/testenv"
)

// exportHeader is docs/api.md section 4.4's header line, word for word.
const exportHeader = "msisdn,amount,firstname,lastname,externalId,statusCode,isMember,settledAt,referralAmount,referralMsisdn,referralStatusCode,id"

// TestE2EExportPayments: GET /batches/{id}/payments.csv gives every
// non-deleted payment in the order added (over several pages: the
// harness reads 3 at a time), each cell the text of the JSON member of
// its column, formulas neutralised; the header alone for an empty batch;
// 404 for another organisation's, an unknown or a malformed id; 401
// without a token (docs/api.md section 4.4).
func TestE2EExportPayments(t *testing.T) { eachStore(t, testE2EExportPayments) }

func testE2EExportPayments(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", true, "1000.00")
	ok[Member](t, h.register(member, false), 201)
	b := h.createBatch(a, "results")
	added := ok[Batch](t, h.addPayments(a, b.ID, false,
		`{"msisdn":"`+member+`","amount":10,"firstname":"=1+2","lastname":"O\"Neil, Jr","externalId":"@inv-1"}`,
		`{"msisdn":"`+nonMember+`","amount":20.5,"firstname":"-Ann","externalId":"+inv-2","referralMsisdn":"`+member+`","referralAmount":1.25}`,
		pay(third, "30"), pay(member, "40"), pay(nonMember, "50"), pay(third, "60"), pay(member, "70"),
	), 200)
	ok[Payment](t, h.do("DELETE", "/payments/"+added.Payments[3].ID, a.token, nil), 200)
	ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200)
	h.clock.Advance(time.Minute)
	ok[Member](t, h.register(third, false), 201) // settles the third payee's legs later than the submit

	res := h.do("GET", "/batches/"+b.ID+"/payments.csv", a.token, nil)
	rows := exportRows(t, res, b.ID)
	if len(rows) != 1+6 {
		t.Fatalf("%d lines, want the header and the 6 payments not deleted:\n%s", len(rows), res.body)
	}
	var want [][]string
	for _, p := range paymentsJSON(t, h, a, b.ID) {
		if string(p["statusCode"]) != `"DELETED"` {
			want = append(want, cellsOf(p))
		}
	}
	if diff := cmp.Diff(want, rows[1:]); diff != "" {
		t.Errorf("rows against GET /batches/{id}/payments (-want +got):\n%s", diff)
	}
	wantFirst := []string{member, "10.00", "'=1+2", `O"Neil, Jr`, "'@inv-1", "SETTLED", "true"}
	if diff := cmp.Diff(wantFirst, rows[1][:7]); diff != "" {
		t.Errorf("the first row's cells (-want +got):\n%s", diff)
	}
	wantSecond := []string{nonMember, "20.50", "'-Ann", "", "'+inv-2", "PENDING", "false", "", "1.25", member, "SETTLED", added.Payments[1].ID}
	if diff := cmp.Diff(wantSecond, rows[2]); diff != "" {
		t.Errorf("the second row (-want +got):\n%s", diff)
	}

	empty := h.createBatch(a, "empty")
	if rows := exportRows(t, h.do("GET", "/batches/"+empty.ID+"/payments.csv", a.token, nil), empty.ID); len(rows) != 1 {
		t.Errorf("an empty batch's file: %q, want the header alone", rows)
	}
	other := h.createOrg("Other", false, "")
	problem(t, h.do("GET", "/batches/"+b.ID+"/payments.csv", other.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/"+disburse.NewID()+"/payments.csv", a.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/not-an-id/payments.csv", a.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/"+b.ID+"/payments.csv", "", nil), 401, "unauthorized")
	// The list route beside it is untouched by the new segment.
	if list := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200); len(list) != 7 {
		t.Errorf("GET /batches/{id}/payments: %d payments, want 7", len(list))
	}
}

// exportRows checks an export's headers and header line and returns its lines' cells.
func exportRows(t *testing.T, res response, batchID string) [][]string {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := res.header.Get("Content-Disposition"); cd != "attachment; filename=payments-"+batchID+".csv" {
		t.Errorf("Content-Disposition %q", cd)
	}
	if line, _, _ := strings.Cut(string(res.body), "\n"); line != exportHeader {
		t.Errorf("header line %q, want %q", line, exportHeader)
	}
	r := csv.NewReader(bytes.NewReader(res.body))
	r.FieldsPerRecord = len(strings.Split(exportHeader, ","))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the file does not read as CSV: %v\n%s", err, res.body)
	}
	return rows
}

// paymentsJSON is GET /batches/{id}/payments, each payment's members as sent.
func paymentsJSON(t *testing.T, h *harness, o org, batchID string) []map[string]json.RawMessage {
	t.Helper()
	res := h.do("GET", "/batches/"+batchID+"/payments", o.token, nil)
	var list []map[string]json.RawMessage
	if res.status != 200 || json.Unmarshal(res.body, &list) != nil {
		t.Fatalf("GET /batches/{id}/payments: %d %s", res.status, res.body)
	}
	return list
}

// cellsOf is the row the export should give a payment: each column the
// text of the JSON member of its name (a string unquoted, a number or a
// boolean as written, empty when left out), with a single quote before a
// cell that begins as a formula would (OWASP, "CSV Injection").
func cellsOf(p map[string]json.RawMessage) []string {
	var cells []string
	for _, name := range strings.Split(exportHeader, ",") {
		raw, cell := p[name], ""
		if s, err := strconv.Unquote(string(raw)); err == nil {
			cell = s
		} else if raw != nil {
			cell = string(raw)
		}
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			cell = "'" + cell
		}
		cells = append(cells, cell)
	}
	return cells
}

// readCountingStore counts its read transactions and holds the one after
// the first holdAfter until its request's context ends: a page still being
// read when the client hangs up.
type readCountingStore struct {
	featureStore
	reads, holdAfter *atomic.Int64
	held             chan struct{}
}

func (s readCountingStore) Read(ctx context.Context, fn func(disburse.Tx) error) error {
	if s.reads.Add(1) == s.holdAfter.Load()+1 {
		close(s.held)
		<-ctx.Done()
		return ctx.Err()
	}
	return s.featureStore.Read(ctx, fn)
}

// TestE2EExportStopsWhenClientHangsUp: a client that hangs up midway
// through an export stops it: the page being read is abandoned with the
// request's context, no later page is read, and the request is logged as
// it ended, with no error (docs/api.md section 4.4).
func TestE2EExportStopsWhenClientHangsUp(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		store := open(t)
		var logged logs.Buffer
		handler, err := logs.NewHandler(&logged, "json", "debug")
		if err != nil {
			t.Fatal(err)
		}
		counting := readCountingStore{featureStore: store, reads: new(atomic.Int64), holdAfter: new(atomic.Int64), held: make(chan struct{})}
		counting.holdAfter.Store(1 << 40)
		h := serveStore(t, counting, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), Log: slog.New(handler)})
		a := h.createOrg("Acme", false, "")
		b := h.createBatch(a, "long")
		var ps []string
		for i := range 30 { // ten pages of the harness's 3
			ps = append(ps, pay(nonMember, strconv.Itoa(i+1)))
		}
		ok[Batch](t, h.addPayments(a, b.ID, false, ps...), 200)

		counting.holdAfter.Store(counting.reads.Load() + 3) // three pages go out, the fourth is held
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", h.base+"/batches/"+b.ID+"/payments.csv", nil)
		req.Header.Set("Authorization", "Bearer "+a.token)
		req.Header.Set("X-Request-Id", "export-hangup")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if line, err := readLine(res.Body); err != nil || line != exportHeader {
			t.Fatalf("first line %q, %v", line, err)
		}
		select {
		case <-counting.held:
		case <-time.After(30 * time.Second):
			t.Fatal("the export never reached its held page")
		}
		cancel()
		res.Body.Close()

		requestLine(t, &logged, "export-hangup") // the handler has returned
		if got, want := counting.reads.Load(), counting.holdAfter.Load()+1; got != want {
			t.Errorf("%d reads by the time the export ended, want %d: none after the held page", got, want)
		}
		for _, rec := range jsonLines(t, logged.String()) {
			if rec["request_id"] == "export-hangup" && rec["level"] != "INFO" {
				t.Errorf("a %v line for the hung-up export: %v", rec["level"], rec)
			}
		}
	})
}

// readLine reads up to the first line break, a byte at a time, so that
// nothing past it is read.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	one := make([]byte, 1)
	for {
		if _, err := io.ReadFull(r, one); err != nil {
			return b.String(), err
		}
		if one[0] == '\n' {
			return b.String(), nil
		}
		b.WriteByte(one[0])
	}
}

// TestE2EExportToASlowClient: a client that reads a large export more
// slowly than the server's write timeout allows for the whole answer
// still gets all of it: the deadline moves with each write (docs/api.md
// section 4.4). Its receive buffer is small, so that the server waits on
// it rather than on the kernel's buffers.
func TestE2EExportToASlowClient(t *testing.T) {
	testenv.SkipUnlessLong(t)
	eachStore(t, func(t *testing.T, open opener) {
		store := open(t)
		h := serveStore(t, store, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()})
		a := h.createOrg("Acme", false, "")
		b := h.createBatch(a, "large")
		const n = 100_000
		ps := make([]disburse.PaymentInput, n)
		for i := range ps {
			ps[i] = disburse.PaymentInput{Msisdn: fmt.Sprintf("2547%08d", 10_000_000+i), Amount: "1"}
		}
		clear := false // straight to the service: the harness's client checks every answer against openapi.yaml, slowly at this size
		if _, _, err := h.svc.AddPayments(t.Context(), a.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: ps}); err != nil {
			t.Fatal(err)
		}

		// The same store behind a server whose answers must be whole in a second.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		svc := disburse.NewService(store)
		svc.Clock, svc.Log = h.clock.Now, e2eLogger()
		strict := &http.Server{Handler: httpapi.New(svc, httpapi.Config{IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), Log: e2eLogger()}),
			ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Second}
		go strict.Serve(ln)
		t.Cleanup(func() { strict.Close() })

		dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			if cerr := c.Control(func(fd uintptr) {
				err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10)
			}); cerr != nil {
				return cerr
			}
			return err
		}}
		client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/batches/"+b.ID+"/payments.csv", nil)
		req.Header.Set("Authorization", "Bearer "+a.token)
		t.Logf("%d payments added", n)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("status %d", res.StatusCode)
		}
		lines, buf := 0, make([]byte, 16<<10)
		for {
			k, err := res.Body.Read(buf)
			lines += bytes.Count(buf[:k], []byte{'\n'})
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("after %d lines in %v: %v", lines, time.Since(start), err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("%d lines in %v", lines, time.Since(start))
		if took := time.Since(start); lines != 1+n || took < 2*strict.WriteTimeout {
			t.Errorf("%d lines in %v, want %d in more than %v (a client slower than the write timeout)", lines, took, 1+n, 2*strict.WriteTimeout)
		}
	})
}
