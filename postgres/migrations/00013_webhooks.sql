-- Webhooks to organisations (docs/webhooks.md). An endpoint is a URL an
-- organisation registered with the events it wants and the secret that
-- signs them; the secret is kept as issued, since signing needs it back
-- (docs/decisions.md, "Secrets"). A delivery is one event for one endpoint:
-- written in the transaction of the change that caused the event, then
-- claimed with a lease, sent and retried by the webhook worker.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id                    uuid PRIMARY KEY,
    organisation_id       uuid NOT NULL REFERENCES organisations (id),
    url                   text NOT NULL,
    events                text NOT NULL,
    enabled               boolean NOT NULL,
    disabled_reason       text NOT NULL,
    secret                text NOT NULL,
    previous_secret       text NOT NULL,
    previous_secret_until bigint,
    failing_since         bigint,
    created_at            bigint NOT NULL,
    updated_at            bigint NOT NULL
);
CREATE INDEX webhook_endpoints_organisation ON webhook_endpoints (organisation_id, created_at);

CREATE TABLE webhook_deliveries (
    id               uuid PRIMARY KEY,
    endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    organisation_id  uuid NOT NULL,
    event_type       text NOT NULL,
    resource_id      uuid NOT NULL,
    event_at         bigint NOT NULL,
    status           text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts         bigint NOT NULL CHECK (attempts >= 0),
    next_attempt_at  bigint NOT NULL,
    lease_until      bigint,
    lease_owner      text NOT NULL,
    last_status_code bigint NOT NULL,
    last_error       text NOT NULL,
    created_at       bigint NOT NULL,
    delivered_at     bigint,
    CHECK (status <> 'DELIVERED' OR delivered_at IS NOT NULL)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_lease_owner ON webhook_deliveries (lease_owner) WHERE lease_owner <> '';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
