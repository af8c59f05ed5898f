package notify

import (
	"context"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/logs"
)

// TestLogKeepsThePayeeOut: the log provider's line names neither the
// payee's number nor the name the message greets them by, in either
// format (docs/operations.md, "Logs").
func TestLogKeepsThePayeeOut(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf logs.Buffer
		logger, err := logs.New(&buf, format, "debug")
		if err != nil {
			t.Fatal(err)
		}
		n := disburse.Notification{ID: "n1", Channel: disburse.ChannelSMS, Recipient: "254712345678",
			Message: "Dear Wanjiku Kamau, you have received KES 100.00"}
		if err := (Log{Logger: logger}).Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		line := buf.String()
		for _, private := range []string{"254712345678", "Wanjiku", "Kamau"} {
			if strings.Contains(line, private) {
				t.Errorf("%s: the log line holds %q: %s", format, private, line)
			}
		}
		if !strings.Contains(line, "n1") {
			t.Errorf("%s: the log line does not name the notification: %s", format, line)
		}
	}
}
