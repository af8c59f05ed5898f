package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/webhooks"
)

// Webhook endpoints and their deliveries (docs/webhooks.md). An endpoint's
// events are kept as one comma-separated text, empty for every event: the
// list is short, read whole and never queried by its parts.

const endpointColumns = `id, organisation_id, url, events, enabled, disabled_reason, secret, previous_secret,
	previous_secret_until, failing_since, created_at, updated_at, api_version`

func scanEndpoint(r scanner) (webhooks.Endpoint, error) {
	var e webhooks.Endpoint
	var events string
	err := r.Scan(&e.ID, &e.OrganisationID, &e.URL, &events, &e.Enabled, &e.DisabledReason, &e.Secret, &e.PreviousSecret,
		at(&e.PreviousSecretUntil), at(&e.FailingSince), at(&e.CreatedAt), at(&e.UpdatedAt), &e.APIVersion)
	e.Events = splitEvents(events)
	return e, err
}

func joinEvents(ts []disburse.EventType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return strings.Join(names, ",")
}

func splitEvents(s string) []disburse.EventType {
	if s == "" {
		return nil
	}
	var ts []disburse.EventType
	for name := range strings.SplitSeq(s, ",") {
		ts = append(ts, disburse.EventType(name))
	}
	return ts
}

func (t *tx) InsertWebhookEndpoint(ctx context.Context, e webhooks.Endpoint) error {
	return t.insert(ctx, "webhook endpoint",
		`INSERT INTO webhook_endpoints (`+endpointColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrganisationID, e.URL, joinEvents(e.Events), e.Enabled, e.DisabledReason, e.Secret, e.PreviousSecret,
		micros(e.PreviousSecretUntil), micros(e.FailingSince), micros(e.CreatedAt), micros(e.UpdatedAt), e.APIVersion)
}

func (t *tx) WebhookEndpoint(ctx context.Context, id string) (webhooks.Endpoint, error) {
	e, err := scanEndpoint(t.queryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = ?`, id))
	return e, found("webhook endpoint", err)
}

func (t *tx) UpdateWebhookEndpoint(ctx context.Context, e webhooks.Endpoint) error {
	return t.update(ctx, "webhook endpoint", `UPDATE webhook_endpoints SET url = ?, events = ?, enabled = ?, disabled_reason = ?,
		secret = ?, previous_secret = ?, previous_secret_until = ?, failing_since = ?, updated_at = ? WHERE id = ?`,
		e.URL, joinEvents(e.Events), e.Enabled, e.DisabledReason, e.Secret, e.PreviousSecret,
		micros(e.PreviousSecretUntil), micros(e.FailingSince), micros(e.UpdatedAt), e.ID)
}

// DeleteWebhookEndpoint deletes the deliveries itself rather than count on
// ON DELETE CASCADE, which SQLite applies only with foreign keys on.
func (t *tx) DeleteWebhookEndpoint(ctx context.Context, id string) error {
	if _, err := t.exec(ctx, `DELETE FROM webhook_deliveries WHERE endpoint_id = ?`, id); err != nil {
		return fmt.Errorf("delete webhook deliveries: %w", err)
	}
	res, err := t.exec(ctx, `DELETE FROM webhook_endpoints WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete webhook endpoint: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("delete webhook endpoint: %w", orNotFoundErr(err))
	}
	return nil
}

func orNotFoundErr(err error) error {
	if err != nil {
		return err
	}
	return disburse.ErrNotFound
}

func (t *tx) WebhookEndpoints(ctx context.Context, organisationID string) ([]webhooks.Endpoint, error) {
	query, args := `SELECT `+endpointColumns+` FROM webhook_endpoints`, []any(nil)
	if organisationID != "" {
		query, args = query+` WHERE organisation_id = ?`, append(args, organisationID)
	}
	return list(ctx, t, "webhook endpoints", func(r *sql.Rows) (webhooks.Endpoint, error) { return scanEndpoint(r) },
		query+` ORDER BY created_at, id`, args...)
}

// InsertWebhookEvents reads the enabled endpoints of the events'
// organisations once, matches them in memory and writes the deliveries in
// bulk: an organisation has a handful of endpoints, and a transaction
// that writes events (a registration, a sweep) may span many organisations.
//
// Inside Together the read is held with the writes, and the deliveries
// written once it is answered: a registration group's events then cost no
// round trip of their own where no endpoint wants them (docs/benchmarks.md,
// "Registration"); the count it returns there is 0.
func (t *tx) InsertWebhookEvents(ctx context.Context, events []disburse.WebhookEvent) (int, error) {
	orgs := make([]string, 0, 1)
	for _, e := range events {
		if !slices.Contains(orgs, e.OrganisationID) {
			orgs = append(orgs, e.OrganisationID)
		}
	}
	args := []any{true}
	for _, o := range orgs {
		args = append(args, o)
	}
	var endpoints []webhooks.Endpoint
	read := Statement{Query: t.e.Rebind(`SELECT ` + endpointColumns + ` FROM webhook_endpoints WHERE enabled = ? AND organisation_id IN (` +
		placeholders(len(orgs)) + `) ORDER BY created_at, id`), Args: args,
		Row: func(r Rows) error {
			e, err := scanEndpoint(r)
			endpoints = append(endpoints, e)
			return err
		},
		Done: named("webhook endpoints")}
	if t.together {
		t.holdRead(read, func() error {
			_, err := t.insertDeliveries(ctx, events, endpoints)
			return err
		})
		return 0, nil
	}
	if err := t.later(ctx, read); err != nil {
		return 0, err
	}
	return t.insertDeliveries(ctx, events, endpoints)
}

// insertDeliveries writes a delivery for each of events and each of
// endpoints, of its organisation, that wants it.
func (t *tx) insertDeliveries(ctx context.Context, events []disburse.WebhookEvent, endpoints []webhooks.Endpoint) (int, error) {
	if len(endpoints) == 0 {
		return 0, nil
	}
	ds := make([]webhooks.Delivery, 0, len(events))
	for _, ev := range events {
		for _, e := range endpoints {
			if e.OrganisationID == ev.OrganisationID && e.Wants(ev.Type) {
				ds = append(ds, webhooks.Delivery{ID: disburse.NewID(), EndpointID: e.ID, OrganisationID: ev.OrganisationID,
					EventType: ev.Type, ResourceID: ev.ResourceID, EventAt: ev.At, Status: webhooks.DeliveryPending,
					NextAttemptAt: ev.At, CreatedAt: ev.At})
			}
		}
	}
	if len(ds) == 0 {
		return 0, nil
	}
	cols := []Column{
		IDCol("id", func(i int) string { return ds[i].ID }),
		IDCol("endpoint_id", func(i int) string { return ds[i].EndpointID }),
		IDCol("organisation_id", func(i int) string { return ds[i].OrganisationID }),
		TextCol("event_type", func(i int) string { return string(ds[i].EventType) }),
		IDCol("resource_id", func(i int) string { return ds[i].ResourceID }),
		TimeCol("event_at", func(i int) time.Time { return ds[i].EventAt }),
		TextCol("status", func(i int) string { return string(ds[i].Status) }),
		IntCol("attempts", func(i int) int64 { return 0 }),
		TimeCol("next_attempt_at", func(i int) time.Time { return ds[i].NextAttemptAt }),
		TextCol("lease_owner", func(i int) string { return "" }),
		IntCol("last_status_code", func(i int) int64 { return 0 }),
		TextCol("last_error", func(i int) string { return "" }),
		TimeCol("created_at", func(i int) time.Time { return ds[i].CreatedAt }),
	}
	return len(ds), t.insertRows(ctx, "webhook_deliveries", cols, len(ds))
}

const deliveryColumns = `d.id, d.endpoint_id, d.organisation_id, d.event_type, d.resource_id, d.event_at, d.status, d.attempts,
	d.next_attempt_at, d.lease_until, d.lease_owner, d.last_status_code, d.last_error, d.created_at, d.delivered_at`

func scanDelivery(r *sql.Rows) (webhooks.Delivery, error) {
	var d webhooks.Delivery
	err := r.Scan(&d.ID, &d.EndpointID, &d.OrganisationID, &d.EventType, &d.ResourceID, at(&d.EventAt), &d.Status, &d.Attempts,
		at(&d.NextAttemptAt), at(&d.LeaseUntil), &d.LeaseOwner, &d.LastStatusCode, &d.LastError, at(&d.CreatedAt), at(&d.DeliveredAt))
	return d, err
}

// ClaimWebhookDeliveries leases in one statement, as ClaimNotifications
// does; a disabled endpoint's deliveries wait where they are. The endpoint
// is tested in a subquery rather than joined, so that the row lock falls
// on the deliveries alone: a locked endpoint row would make every other
// worker skip all its deliveries, and would hold up the use cases whose
// new deliveries reference it.
//
// The endpoints to skip are those whose share of the claimer's attempts is
// in flight: a few, at most one per slot, so they are listed inline.
func (t *tx) ClaimWebhookDeliveries(ctx context.Context, c webhooks.DeliveryClaim) ([]webhooks.Delivery, error) {
	args := []any{c.Owner, micros(c.LeaseUntil), micros(c.Now), micros(c.Now), true}
	notIn := ""
	if len(c.Skip) > 0 {
		notIn = ` AND d.endpoint_id NOT IN (?` + strings.Repeat(", ?", len(c.Skip)-1) + `)`
		for _, id := range c.Skip {
			args = append(args, id)
		}
	}
	ds, err := list(ctx, t, "claim webhook deliveries", scanDelivery,
		`UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
		WHERE id IN (
			SELECT d.id FROM webhook_deliveries d
			WHERE d.status = 'PENDING' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
				AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled = ?)`+notIn+`
			ORDER BY d.next_attempt_at, d.id LIMIT ?`+t.e.LockClause(true)+`)
		RETURNING `+strings.ReplaceAll(deliveryColumns, "d.", ""),
		append(args, c.Limit)...)
	slices.SortFunc(ds, func(a, b webhooks.Delivery) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return ds, err
}

// UpdateWebhookDeliveries writes as UpdateNotifications does: in bulk,
// each row only under its LeaseOwner's lease, a zero next attempt keeping
// the stored one.
func (t *tx) UpdateWebhookDeliveries(ctx context.Context, ds []webhooks.Delivery) (int, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	cols := []Column{
		IDCol("id", func(i int) string { return ds[i].ID }),
		TextCol("lease_owner", func(i int) string { return ds[i].LeaseOwner }),
		TextCol("status", func(i int) string { return string(ds[i].Status) }),
		IntCol("attempts", func(i int) int64 { return int64(ds[i].Attempts) }),
		TimeCol("next_attempt_at", func(i int) time.Time { return ds[i].NextAttemptAt }),
		IntCol("last_status_code", func(i int) int64 { return int64(ds[i].LastStatusCode) }),
		TextCol("last_error", func(i int) string { return ds[i].LastError }),
		TimeCol("delivered_at", func(i int) time.Time { return ds[i].DeliveredAt }),
	}
	n, err := t.bulk(ctx, `UPDATE webhook_deliveries
		SET status = r.status, attempts = r.attempts, next_attempt_at = COALESCE(r.next_attempt_at, webhook_deliveries.next_attempt_at),
			last_status_code = r.last_status_code, last_error = r.last_error, delivered_at = r.delivered_at,
			lease_owner = '', lease_until = NULL
		FROM @rows AS r WHERE webhook_deliveries.id = r.id AND webhook_deliveries.lease_owner = r.lease_owner`, nil, len(ds), cols, nil)
	if err != nil {
		return int(n), fmt.Errorf("update webhook deliveries: %w", err)
	}
	return int(n), nil
}

// ExtendWebhookLeases names the rows, as ReleaseNotifications does.
func (t *tx) ExtendWebhookLeases(ctx context.Context, owner string, ids []string, now, until time.Time) ([]string, error) {
	renewed, err := t.extend(ctx, "webhook_deliveries", owner, ids, now, until)
	if err != nil {
		return nil, fmt.Errorf("extend webhook leases: %w", err)
	}
	return renewed, nil
}

// ReleaseWebhookDeliveries names the rows, as ReleaseNotifications does.
func (t *tx) ReleaseWebhookDeliveries(ctx context.Context, owner string, ids []string) error {
	if err := t.release(ctx, "webhook_deliveries", owner, ids); err != nil {
		return fmt.Errorf("release webhook deliveries: %w", err)
	}
	return nil
}

// extend sets to until the lease of the rows ids names that owner holds
// and whose lease has not ended at now, in one statement (per chunk of
// MaxBulkRows), and returns the ids of the rows it renewed: a row whose
// lease ended may have been taken by another process, and is not taken
// back. A row another transaction has locked is skipped, not waited for,
// where the engine has row locks: the lock is this owner's own write of
// the row's outcome or hand-back (which clears the lease anyway) or
// another process's claim, and a renewal that waited for either would
// take locks in another order than they do and could deadlock with them.
func (t *tx) extend(ctx context.Context, table, owner string, ids []string, now, until time.Time) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var renewed []string
	_, err := t.bulk(ctx, `UPDATE `+table+` SET lease_until = ? WHERE id IN (
			SELECT x.id FROM `+table+` x WHERE x.id IN (SELECT r.id FROM @rows AS r)
				AND x.lease_owner = ? AND x.lease_until >= ?`+t.e.LockClause(true)+`)
		RETURNING id`,
		[]any{micros(until), owner, micros(now)}, len(ids), []Column{IDCol("id", func(i int) string { return ids[i] })},
		func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			renewed = append(renewed, id)
			return err
		})
	return renewed, err
}

// release clears the leases owner still holds on the rows of an outbox
// table that ids names, in bulk.
func (t *tx) release(ctx context.Context, table, owner string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := t.bulk(ctx, `UPDATE `+table+` SET lease_owner = '', lease_until = NULL
		FROM @rows AS r WHERE `+table+`.id = r.id AND `+table+`.lease_owner = ?`,
		[]any{owner}, len(ids), []Column{IDCol("id", func(i int) string { return ids[i] })}, nil)
	return err
}

func (t *tx) WebhookDelivery(ctx context.Context, id string) (webhooks.Delivery, error) {
	ds, err := list(ctx, t, "webhook delivery", scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE d.id = ?`, id)
	if err != nil {
		return webhooks.Delivery{}, err
	}
	if len(ds) == 0 {
		return webhooks.Delivery{}, fmt.Errorf("webhook delivery: %w", disburse.ErrNotFound)
	}
	return ds[0], nil
}

func (t *tx) WebhookDeliveries(ctx context.Context, endpointID string, n int) ([]webhooks.Delivery, error) {
	return list(ctx, t, "webhook deliveries", scanDelivery,
		`SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE d.endpoint_id = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?`,
		endpointID, limit(n))
}

// RetryWebhookDelivery leaves a delivery that a live lease holds alone: the
// attempt in flight writes its own outcome.
func (t *tx) RetryWebhookDelivery(ctx context.Context, id string, now time.Time) error {
	res, err := t.exec(ctx, `UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = ?, delivered_at = NULL
		WHERE id = ? AND (lease_until IS NULL OR lease_until < ?)`, micros(now), id, micros(now))
	if err != nil {
		return fmt.Errorf("retry webhook delivery: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil || k > 0 {
		return err
	}
	if _, err := t.WebhookDelivery(ctx, id); err != nil {
		return err
	}
	return fmt.Errorf("retry webhook delivery %s: %w", id, webhooks.ErrLeaseLost)
}

// Webhooks hands over the webhooks package's port: transactions on the
// same pools, with Write's and Read's retries, over webhooks.Tx.
func (s *Store) Webhooks() webhooks.Store { return webhookStore{s} }

// webhookStore is a Store seen through the webhooks package's port.
type webhookStore struct{ s *Store }

var _ webhooks.Tx = (*tx)(nil)

// Write is Store.Write for webhooks.
func (w webhookStore) Write(ctx context.Context, fn func(webhooks.Tx) error) error {
	return w.s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

// Read is Store.Read for webhooks.
func (w webhookStore) Read(ctx context.Context, fn func(webhooks.Tx) error) error {
	return w.s.readTx(ctx, func(t *tx) error { return fn(t) })
}
