package logs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestLoggerMasksMsisdnsAndKeepsLevel(t *testing.T) {
	var b strings.Builder
	log, err := New(&b, "json", "warn")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("dropped: below the level", "recipient", "254712345678")
	log.Warn("notification", "recipient", "254712345678", "id", "n1")
	var line map[string]any
	if err := json.Unmarshal([]byte(b.String()), &line); err != nil {
		t.Fatalf("one JSON line: %v: %s", err, b.String())
	}
	if line["recipient"] != "254******678" || line["id"] != "n1" {
		t.Errorf("line = %v", line)
	}
	for _, bad := range [][2]string{{"xml", "info"}, {"text", "loud"}} {
		if _, err := New(&b, bad[0], bad[1]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestLoggerMasksNumbersInErrors(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var b strings.Builder
		log, err := New(&b, format, "info")
		if err != nil {
			t.Fatal(err)
		}
		log.Error("internal error", "err", errors.New(`duplicate key (msisdn)=(254712345678) in 12 rows of 1234567`))
		got := b.String()
		if strings.Contains(got, "254712345678") {
			t.Errorf("%s: the number is in the line: %s", format, got)
		}
		for _, kept := range []string{"254******678", "12 rows", "1234567"} {
			if !strings.Contains(got, kept) {
				t.Errorf("%s: %q is gone from the line: %s", format, kept, got)
			}
		}
	}
}
