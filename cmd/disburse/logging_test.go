package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLoggerMasksMsisdnsAndKeepsLevel(t *testing.T) {
	var b strings.Builder
	log, err := newLogger(&b, "json", "warn")
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
		if _, err := newLogger(&b, bad[0], bad[1]); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
