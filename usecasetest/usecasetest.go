// Package usecasetest runs the use cases (disburse.Service) on a real
// store: races between them, the notification outbox, random operations
// checked against a model, and the use-case benchmarks. The SQLite and
// PostgreSQL stores run it beside storetest, the suite of the Store port
// itself.
package usecasetest

// Msisdns that libphonenumber accepts.
const (
	msisdnKE  = "254712345678"
	msisdnKE2 = "254722000111"
	msisdnKE3 = "254733000222"
)
