package fanout

import "time"

// DefaultLease is the lease of a claim of notifications or webhook
// deliveries: short, so that the rows of a process that dies are sent by
// another within seconds, and long enough for a heartbeat or two to be
// late (a busy database) without losing it. Replicas' clocks must agree to
// well within a third of it (docs/operations.md, "Background work and how
// it is claimed").
const DefaultLease = 5 * time.Second

// DefaultConcurrency is how many notification sends, and how many webhook
// attempts, one process has in flight at once unless configured: enough
// to hide a gateway's latency, few enough for one gateway's connections.
const DefaultConcurrency = 32
