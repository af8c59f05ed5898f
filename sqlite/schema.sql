-- The schema sqlite/migrations build, written by TestSchemaFile: read it,
-- do not edit it (DISBURSE_UPDATE_SCHEMA=1 go test -run TestSchemaFile ./sqlite).

CREATE TABLE accounts (
    id              TEXT PRIMARY KEY,
    organisation_id TEXT REFERENCES organisations (id) DEFERRABLE INITIALLY DEFERRED,
    kind            TEXT NOT NULL CHECK (kind IN ('PAYOUT', 'HOLDING', 'WALLET', 'FUNDING')),
    name            TEXT NOT NULL,
    currency        TEXT NOT NULL,
    balance         INTEGER NOT NULL DEFAULT 0,
    is_default      INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    msisdn          TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    -- The last line of defence of contract section 6: the use cases check
    -- the float first; InsertTransfers turns this into ErrNegativeBalance.
    CONSTRAINT accounts_balance_check CHECK (balance >= 0 OR kind = 'FUNDING'),
    CHECK ((kind = 'WALLET') = (msisdn <> '')),
    CHECK ((kind IN ('PAYOUT', 'HOLDING')) = (organisation_id IS NOT NULL))
) STRICT;

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    hash            TEXT NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    revoked_at      INTEGER
) STRICT;

CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    at              INTEGER NOT NULL,
    actor           TEXT NOT NULL,
    action          TEXT NOT NULL,
    organisation_id TEXT,
    subject         TEXT NOT NULL,
    before          TEXT NOT NULL,
    after           TEXT NOT NULL
) STRICT;

CREATE TABLE batches (
    id               TEXT PRIMARY KEY,
    organisation_id  TEXT NOT NULL REFERENCES organisations (id),
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    name             TEXT NOT NULL,
    external_id      TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('DRAFT', 'OPEN', 'CLOSED', 'CANCELLED')),
    -- The summary is stored, written by UpdateBatch from what the use
    -- cases computed; the ledger audit recomputes it from the payments.
    payments_amount  INTEGER NOT NULL,
    payments_count   INTEGER NOT NULL,
    referrals_amount INTEGER NOT NULL,
    draft_amount     INTEGER NOT NULL,
    draft_count      INTEGER NOT NULL,
    pending_amount   INTEGER NOT NULL,
    pending_count    INTEGER NOT NULL,
    settled_amount   INTEGER NOT NULL,
    settled_count    INTEGER NOT NULL,
    cancelled_amount INTEGER NOT NULL,
    cancelled_count  INTEGER NOT NULL,
    held_amount      INTEGER NOT NULL CHECK (held_amount >= 0),
    created_at       INTEGER NOT NULL,
    submitted_at     INTEGER,
    closed_at        INTEGER, reversal_due_at INTEGER,
    CHECK (status IN ('DRAFT', 'CANCELLED') OR submitted_at IS NOT NULL),
    CHECK (status IN ('DRAFT', 'OPEN') OR closed_at IS NOT NULL)
) STRICT;

CREATE TABLE idempotency_keys (
    scope        TEXT    NOT NULL,  -- an organisation id, or 'operator'
    key_hash     TEXT    NOT NULL,  -- SHA-256 of the Idempotency-Key
    fingerprint  TEXT    NOT NULL,  -- method, path, scope and body, hashed
    owner        TEXT    NOT NULL,  -- the request that holds the claim
    done         INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)), -- its work committed
    lease_until  INTEGER NOT NULL,  -- in flight until then
    status       INTEGER NOT NULL DEFAULT 0,     -- 0: no answer kept yet
    answer       BLOB,             -- headers and body, sealed
    ref_kind     TEXT    NOT NULL DEFAULT '',    -- an answer rebuilt from the store
    ref_id       TEXT    NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, key_hash)
);

CREATE TABLE member_checks (
    batch_id   TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
);

CREATE TABLE members (
    msisdn        TEXT PRIMARY KEY,
    firstname     TEXT NOT NULL,
    lastname      TEXT NOT NULL,
    app_installed INTEGER NOT NULL CHECK (app_installed IN (0, 1)),
    registered_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE notifications (
    id              TEXT PRIMARY KEY,
    channel         TEXT NOT NULL CHECK (channel IN ('SMS', 'PUSH')),
    recipient       TEXT NOT NULL,
    message         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts        INTEGER NOT NULL CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL,
    lease_until     INTEGER,
    lease_owner     TEXT NOT NULL,
    last_error      TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    sent_at         INTEGER,
    CHECK (status <> 'SENT' OR sent_at IS NOT NULL)
) STRICT;

CREATE TABLE organisations (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    currency           TEXT NOT NULL,
    referrals_enabled  INTEGER NOT NULL CHECK (referrals_enabled IN (0, 1)),
    reversal_period_us INTEGER NOT NULL CHECK (reversal_period_us >= 0),
    -- Deferred: an organisation and its holding account reference each
    -- other, and are inserted in one transaction in either order.
    holding_account_id TEXT REFERENCES accounts (id) DEFERRABLE INITIALLY DEFERRED,
    created_at         INTEGER NOT NULL
) STRICT;

CREATE TABLE payments (
    -- The order of addition (Payments lists by it); InsertPayments inserts
    -- in input order, so the rowid follows it.
    seq                 INTEGER PRIMARY KEY,
    id                  TEXT NOT NULL UNIQUE,
    batch_id            TEXT NOT NULL REFERENCES batches (id),
    organisation_id     TEXT NOT NULL REFERENCES organisations (id),
    msisdn              TEXT NOT NULL,
    amount              INTEGER NOT NULL CHECK (amount > 0),
    firstname           TEXT NOT NULL,
    lastname            TEXT NOT NULL,
    external_id         TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('DRAFT', 'PENDING', 'CANCELLED', 'SETTLED', 'DELETED')),
    is_member           INTEGER NOT NULL CHECK (is_member IN (0, 1)),
    created_at          INTEGER NOT NULL,
    submitted_at        INTEGER,
    settled_at          INTEGER,
    reversal_due_at     INTEGER,
    cancelled_at        INTEGER,
    referral_amount     INTEGER NOT NULL CHECK (referral_amount >= 0),
    referral_msisdn     TEXT NOT NULL,
    referral_status     TEXT NOT NULL CHECK (referral_status IN ('', 'DRAFT', 'PENDING', 'CANCELLED', 'SETTLED', 'DELETED')),
    referral_settled_at INTEGER, held INTEGER GENERATED ALWAYS AS (status = 'PENDING') VIRTUAL, referral_held INTEGER GENERATED ALWAYS AS (referral_status = 'PENDING') VIRTUAL, held_external_id TEXT,
    -- A state implies its timestamps (docs/states.md).
    CHECK (status NOT IN ('PENDING', 'SETTLED') OR submitted_at IS NOT NULL),
    CHECK (status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (status <> 'SETTLED' OR settled_at IS NOT NULL),
    CHECK (status <> 'CANCELLED' OR cancelled_at IS NOT NULL),
    CHECK (referral_status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (referral_status <> 'SETTLED' OR referral_settled_at IS NOT NULL),
    CHECK ((referral_amount > 0) = (referral_msisdn <> ''))
) STRICT;

CREATE TABLE portal_sessions (
    hash         TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES portal_users (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE portal_uploads (
    id              TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    batch_id        TEXT NOT NULL REFERENCES batches (id),
    phase           TEXT NOT NULL CHECK (phase IN ('RECEIVING', 'CHECKING', 'ADDING', 'DONE')),
    done            INTEGER NOT NULL CHECK (done >= 0),
    total           INTEGER NOT NULL CHECK (total >= 0),
    rows_read       INTEGER NOT NULL CHECK (rows_read >= 0),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE portal_users (
    id              TEXT PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE,
    password_hash   TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('operator', 'organisation')),
    organisation_id TEXT REFERENCES organisations (id),
    created_at      INTEGER NOT NULL,
    CHECK ((role = 'organisation') = (organisation_id IS NOT NULL))
) STRICT;

CREATE TABLE tokens (
    hash            TEXT PRIMARY KEY,
    api_key_id      TEXT NOT NULL REFERENCES api_keys (id),
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    expires_at      INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE transfers (
    id              TEXT PRIMARY KEY,
    from_account_id TEXT NOT NULL REFERENCES accounts (id),
    to_account_id   TEXT NOT NULL REFERENCES accounts (id),
    amount          INTEGER NOT NULL CHECK (amount > 0),
    kind            TEXT NOT NULL CHECK (kind IN ('DEPOSIT', 'PAY', 'HOLD', 'SETTLE', 'REVERSE', 'CANCEL')),
    payment_id      TEXT REFERENCES payments (id),
    leg             TEXT CHECK (leg IN ('PAYMENT', 'REFERRAL')),
    reference       TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    CHECK (from_account_id <> to_account_id),
    -- Every movement but a deposit belongs to one leg of one payment.
    CHECK ((kind = 'DEPOSIT') = (payment_id IS NULL)),
    CHECK ((payment_id IS NULL) = (leg IS NULL))
) STRICT;

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

CREATE INDEX accounts_organisation ON accounts (organisation_id, created_at) WHERE organisation_id IS NOT NULL;

CREATE UNIQUE INDEX accounts_wallet ON accounts (msisdn, currency) WHERE kind = 'WALLET';

CREATE INDEX audit_log_at ON audit_log (at, id);

CREATE INDEX audit_log_organisation ON audit_log (organisation_id, at, id);

CREATE INDEX batches_account ON batches (account_id);

CREATE INDEX batches_created ON batches (created_at, id);

CREATE INDEX batches_organisation ON batches (organisation_id, created_at DESC, id DESC);

CREATE INDEX batches_reversal_due ON batches (reversal_due_at, id) WHERE status = 'OPEN';

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE INDEX notifications_done ON notifications (status, channel, id) WHERE status <> 'PENDING';

CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';

CREATE INDEX notifications_recipient ON notifications (recipient, created_at);

CREATE INDEX payments_batch ON payments (batch_id, seq);

CREATE UNIQUE INDEX payments_external_id ON payments (organisation_id, held_external_id)
    WHERE held_external_id IS NOT NULL;

CREATE INDEX payments_held_batch ON payments (batch_id, seq) WHERE held OR referral_held;

CREATE INDEX payments_held_msisdn ON payments (msisdn) WHERE held;

CREATE INDEX payments_held_referral ON payments (referral_msisdn) WHERE referral_held;

CREATE INDEX portal_sessions_expires ON portal_sessions (expires_at);

CREATE INDEX portal_uploads_updated ON portal_uploads (updated_at);

CREATE INDEX tokens_api_key ON tokens (api_key_id);

CREATE INDEX tokens_expires ON tokens (expires_at);

CREATE INDEX transfers_payment ON transfers (payment_id);

CREATE INDEX transfers_to_wallet ON transfers (to_account_id) WHERE kind IN ('PAY', 'SETTLE');

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'PENDING';

CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

CREATE INDEX webhook_endpoints_organisation ON webhook_endpoints (organisation_id, created_at);
