-- Webhooks to organisations (docs/webhooks.md). An endpoint is a URL an
-- organisation registered with the events it wants and the secret that
-- signs them; the secret is kept as issued, since signing needs it back
-- (docs/decisions.md, "Secrets"). A delivery is one event for one endpoint:
-- written in the transaction of the change that caused the event, then
-- claimed with a lease, sent and retried by the webhook worker.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id                    TEXT PRIMARY KEY,
    organisation_id       TEXT NOT NULL REFERENCES organisations (id),
    url                   TEXT NOT NULL,
    events                TEXT NOT NULL,
    enabled               INTEGER NOT NULL,
    disabled_reason       TEXT NOT NULL,
    secret                TEXT NOT NULL,
    previous_secret       TEXT NOT NULL,
    previous_secret_until INTEGER,
    failing_since         INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_endpoints_organisation ON webhook_endpoints (organisation_id, created_at);

CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    organisation_id  TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    resource_id      TEXT NOT NULL,
    event_at         INTEGER NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts         INTEGER NOT NULL CHECK (attempts >= 0),
    next_attempt_at  INTEGER NOT NULL,
    lease_until      INTEGER,
    lease_owner      TEXT NOT NULL,
    last_status_code INTEGER NOT NULL,
    last_error       TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    delivered_at     INTEGER,
    CHECK (status <> 'DELIVERED' OR delivered_at IS NOT NULL)
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_lease_owner ON webhook_deliveries (lease_owner) WHERE lease_owner <> '';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
