package httpapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/internal/msisdn"
)

// The end-to-end servers log through the service's own logger
// (internal/logs), in text and in JSON, into one capture; every msisdn a
// test sends is noted on its way out (validatingTransport). When the tests
// have run, no line may hold one of those numbers (docs/operations.md,
// "Logs").
var e2eLogs = &logCapture{payees: map[string]bool{}}

// TestMain runs the tests, then scans what they logged.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := e2eLogs.check(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: the logs hold payees' numbers:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// e2eLogger is the logger of every end-to-end server: both formats, every
// level, into e2eLogs.
func e2eLogger() *slog.Logger {
	text, err := logs.NewHandler(e2eLogs, "text", "debug")
	if err != nil {
		panic(err)
	}
	json, err := logs.NewHandler(e2eLogs, "json", "debug")
	if err != nil {
		panic(err)
	}
	return slog.New(slog.NewMultiHandler(text, json))
}

// logCapture holds log lines and the payees' numbers the tests sent.
type logCapture struct {
	mu     sync.Mutex
	lines  bytes.Buffer
	payees map[string]bool
}

// Write keeps one handler's record; each handler writes a line at a time.
func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lines.Write(p)
}

// digitRun is a maximal run of digits as long as an msisdn can be.
var digitRun = regexp.MustCompile(`\d+`)

// notePayees keeps every run of 9 to 15 digits in sent that is a valid
// msisdn: a number a payee could have.
func (c *logCapture) notePayees(sent []byte) {
	for _, run := range digitRun.FindAll(sent, -1) {
		if len(run) < 9 || len(run) > 15 || !msisdn.Valid(string(run)) {
			continue
		}
		c.mu.Lock()
		c.payees[string(run)] = true
		c.mu.Unlock()
	}
}

// check fails when a line holds a noted number, or when numbers were sent
// and nothing was logged (a scan of nothing proves nothing).
func (c *logCapture) check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.payees) > 0 && c.lines.Len() == 0 {
		return fmt.Errorf("%d numbers were sent and no line was logged", len(c.payees))
	}
	var found []string
	for _, line := range bytes.Split(c.lines.Bytes(), []byte("\n")) {
		for _, run := range digitRun.FindAll(line, -1) {
			if c.payees[string(run)] {
				found = append(found, fmt.Sprintf("%s in %s", run, line))
			}
		}
	}
	sort.Strings(found)
	if len(found) > 0 {
		return fmt.Errorf("%d lines, the first: %s", len(found), found[0])
	}
	return nil
}

func TestLogScanFindsANumber(t *testing.T) {
	c := &logCapture{payees: map[string]bool{}}
	c.notePayees([]byte(`{"msisdn":"254712345678","amount":1234567890}`))
	if err := c.check(); err == nil {
		t.Error("numbers were sent, nothing was logged, and the scan passed")
	}
	log := slog.New(slog.NewTextHandler(c, nil))
	log.Info("request", "path", "/members/254712345678/exists", "bytes", 1234567890)
	if err := c.check(); err == nil {
		t.Error("the scan missed a payee's number in a path")
	}
}
