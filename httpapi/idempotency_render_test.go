package httpapi

import (
	"testing"
)

// TestEveryKeptAnswerIsRendered: each POST that takes an Idempotency-Key
// makes its answer in the work's transaction, secrets included, so that
// a process that stops after the commit leaves a key that replays; but
// the submit, whose answer is rebuilt from the batch (docs/idempotency.md).
// A new POST needs a renderer.
func TestEveryKeptAnswerIsRendered(t *testing.T) {
	rebuiltOrNoKey := map[string]bool{
		"POST /authentication/getToken": true, // takes no key
		"POST /batches/{id}/submit":     true,
	}
	for _, rt := range (&server{}).routes() {
		pattern := rt.method + " " + rt.path
		if rt.method != "POST" || rebuiltOrNoKey[pattern] {
			continue
		}
		if answerRenderers[pattern] == nil {
			t.Errorf("%s has no answer renderer", pattern)
		}
	}
	for pattern := range answerRenderers {
		found := false
		for _, rt := range (&server{}).routes() {
			found = found || rt.method+" "+rt.path == pattern
		}
		if !found {
			t.Errorf("renderer for %s, which is no route", pattern)
		}
	}
}
