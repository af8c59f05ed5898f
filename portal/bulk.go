package portal

import "net/http"

// bulk waits for the organisation's turn at the process's bulk gate, the
// API's (Config.BulkGate), before work on many payments: an upload's
// check and add, a submit, an approval, which runs the submit. It returns
// the request to go on with, its context marked as bulk work's (the
// SQLite store's writer lets small writes go first), and the release to
// defer. Organisations take turns there with the API's requests
// (docs/operations.md, "Bulk work").
func (p *portal) bulk(w http.ResponseWriter, r *http.Request, org string) (*http.Request, func(), error) {
	return p.bulkGate.Admit(w, r, org, p.deadlines)
}
