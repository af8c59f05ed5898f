package disburse

import (
	"log/slog"
	"time"

	"github.com/disburse/disburse/internal/groupcommit"
)

// Limits are the configurable bounds of docs/api.md section 4.1.
type Limits struct {
	MaxPaymentsPerRequest int   // default 100,000
	MaxPaymentsPerBatch   int64 // non-deleted payments; default 1,000,000
	MaxAmount             Money // per payment and per referral; default 1,000,000.00
}

// DefaultLimits are the defaults of docs/api.md section 4.1.
var DefaultLimits = Limits{
	MaxPaymentsPerRequest: 100_000,
	MaxPaymentsPerBatch:   1_000_000,
	MaxAmount:             1_000_000 * 100,
}

// DefaultReversalPeriod is docs/api.md section S1.7's default.
const DefaultReversalPeriod = 60 * 24 * time.Hour

// DefaultCurrency is an organisation's currency when the operator names none.
const DefaultCurrency = "KES"

// Service holds the use cases: every business rule of the service, above the
// Store. The HTTP API, the CLI and the workers call it; none of them touch
// the store directly.
type Service struct {
	Store  Store
	Clock  func() time.Time // injected so tests move time instead of sleeping
	Limits Limits
	Log    *slog.Logger
	// Meter counts money moved for the operator's metrics (meter.go);
	// nil counts nothing.
	Meter Meter
	// PageSize is how many payments Submit moves, and a submit's answer
	// and an export (package export) read, at a time: memory follows a
	// page, not a batch of up to a million payments.
	PageSize int

	// registrations groups concurrent registrations into one transaction
	// (register.go); nil runs each alone.
	registrations *groupcommit.Group[registration, registered]
}

// DefaultPageSize: at this size a page's bulk statements cost far more
// than their round trips, and a page's payments, transfers and
// notifications stay a few megabytes (docs/benchmarks.md).
const DefaultPageSize = 10_000

// NewService returns a Service with the defaults of docs/api.md.
func NewService(store Store) *Service {
	s := &Service{
		Store:    store,
		Clock:    time.Now,
		Limits:   DefaultLimits,
		Log:      slog.Default(),
		PageSize: DefaultPageSize,
	}
	s.registrations = groupcommit.New(registrationGroups, maxRegistrationGroup, s.register)
	return s
}

// Now is the time of one use case: read once, so a transaction sees one clock.
// Truncated to microseconds, the precision the stores keep.
func (s *Service) Now() time.Time {
	return s.Clock().UTC().Truncate(time.Microsecond)
}

// pageSize is PageSize, or the default for a Service built without
// NewService.
func (s *Service) pageSize() int {
	if s.PageSize > 0 {
		return s.PageSize
	}
	return DefaultPageSize
}

// WithStore returns a copy of s whose use cases write through st, each in
// a transaction of its own: st then sees every write of the use cases it
// runs, which a group commit of registrations would run on s's store
// instead. Package idempotency runs a claimed request this way.
func (s *Service) WithStore(st Store) *Service {
	cp := *s
	cp.Store = st
	cp.registrations = nil
	return &cp
}
