-- The schema of docs/ledger.md: the same tables, columns, constraints and
-- indexes as sqlite/migrations/00001_schema.sql, in PostgreSQL's types:
--   * times are BIGINT unix microseconds UTC, NULL for "not yet" (sqlstore
--     reads and writes them as integers on both engines);
--   * money is BIGINT minor units (cents);
--   * ids are uuid (16 bytes, not 36 characters of text, in every index);
--   * flags are boolean where SQLite has 0/1 integers;
--   * optional text is '' (NOT NULL); optional references are NULL.

-- +goose Up
CREATE TABLE organisations (
    id                 uuid PRIMARY KEY,
    name               text NOT NULL,
    currency           text NOT NULL,
    referrals_enabled  boolean NOT NULL,
    reversal_period_us bigint NOT NULL CHECK (reversal_period_us >= 0),
    -- References accounts, created below; the foreign key follows it.
    holding_account_id uuid,
    created_at         bigint NOT NULL
);

-- fillfactor: a balance changes with every movement; room on the page lets
-- PostgreSQL update the row in place (HOT) instead of touching its indexes.
CREATE TABLE accounts (
    id              uuid PRIMARY KEY,
    organisation_id uuid REFERENCES organisations (id) DEFERRABLE INITIALLY DEFERRED,
    kind            text NOT NULL CHECK (kind IN ('PAYOUT', 'HOLDING', 'WALLET', 'FUNDING')),
    name            text NOT NULL,
    currency        text NOT NULL,
    balance         bigint NOT NULL DEFAULT 0,
    is_default      boolean NOT NULL DEFAULT false,
    msisdn          text NOT NULL DEFAULT '',
    created_at      bigint NOT NULL,
    -- The last line of defence of contract section 6: the use cases check
    -- the float first; InsertTransfers turns this into ErrNegativeBalance.
    CONSTRAINT accounts_balance_check CHECK (balance >= 0 OR kind = 'FUNDING'),
    CHECK ((kind = 'WALLET') = (msisdn <> '')),
    CHECK ((kind IN ('PAYOUT', 'HOLDING')) = (organisation_id IS NOT NULL))
) WITH (fillfactor = 80);

-- Deferred: an organisation and its holding account reference each other,
-- and are inserted in one transaction in either order.
ALTER TABLE organisations ADD FOREIGN KEY (holding_account_id)
    REFERENCES accounts (id) DEFERRABLE INITIALLY DEFERRED;

-- One wallet per msisdn and currency: EnsureWallets relies on it.
CREATE UNIQUE INDEX accounts_wallet ON accounts (msisdn, currency) WHERE kind = 'WALLET';
CREATE INDEX accounts_organisation ON accounts (organisation_id, created_at) WHERE organisation_id IS NOT NULL;

-- The funding account: see the SQLite schema. One row in no currency ('');
-- its balance is minus everything ever deposited.
INSERT INTO accounts (id, kind, name, currency, balance, created_at)
VALUES ('00000000-0000-7000-8000-000000000000', 'FUNDING', 'Funding', '', 0, 0);

CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    organisation_id uuid NOT NULL REFERENCES organisations (id),
    hash            text NOT NULL UNIQUE,
    prefix          text NOT NULL,
    created_at      bigint NOT NULL,
    revoked_at      bigint
);

CREATE TABLE tokens (
    hash            text PRIMARY KEY,
    api_key_id      uuid NOT NULL REFERENCES api_keys (id),
    organisation_id uuid NOT NULL REFERENCES organisations (id),
    expires_at      bigint NOT NULL,
    created_at      bigint NOT NULL
);

CREATE INDEX tokens_api_key ON tokens (api_key_id);

CREATE TABLE members (
    msisdn        text PRIMARY KEY,
    firstname     text NOT NULL,
    lastname      text NOT NULL,
    app_installed boolean NOT NULL,
    registered_at bigint NOT NULL
);

-- fillfactor: the stored summary changes with every use case on the batch.
CREATE TABLE batches (
    id               uuid PRIMARY KEY,
    organisation_id  uuid NOT NULL REFERENCES organisations (id),
    account_id       uuid NOT NULL REFERENCES accounts (id),
    name             text NOT NULL,
    external_id      text NOT NULL,
    status           text NOT NULL CHECK (status IN ('DRAFT', 'OPEN', 'CLOSED', 'CANCELLED')),
    -- The summary is stored, written by UpdateBatch from what the use
    -- cases computed; the ledger audit recomputes it from the payments.
    payments_amount  bigint NOT NULL,
    payments_count   bigint NOT NULL,
    referrals_amount bigint NOT NULL,
    draft_amount     bigint NOT NULL,
    draft_count      bigint NOT NULL,
    pending_amount   bigint NOT NULL,
    pending_count    bigint NOT NULL,
    settled_amount   bigint NOT NULL,
    settled_count    bigint NOT NULL,
    cancelled_amount bigint NOT NULL,
    cancelled_count  bigint NOT NULL,
    held_amount      bigint NOT NULL CHECK (held_amount >= 0),
    created_at       bigint NOT NULL,
    submitted_at     bigint,
    closed_at        bigint,
    CHECK (status IN ('DRAFT', 'CANCELLED') OR submitted_at IS NOT NULL),
    CHECK (status IN ('DRAFT', 'OPEN') OR closed_at IS NOT NULL)
) WITH (fillfactor = 80);

-- GET /batches: newest first, ties by id.
CREATE INDEX batches_organisation ON batches (organisation_id, created_at DESC, id DESC);
-- HeldBalance of a payout account sums its batches.
CREATE INDEX batches_account ON batches (account_id);

CREATE TABLE payments (
    -- The order of addition (Payments lists by it); InsertPayments inserts
    -- in input order, so the identity follows it. No sequence cache: with
    -- one, two sessions would hand out interleaved ranges.
    seq                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                  uuid NOT NULL UNIQUE,
    batch_id            uuid NOT NULL REFERENCES batches (id),
    organisation_id     uuid NOT NULL REFERENCES organisations (id),
    msisdn              text NOT NULL,
    amount              bigint NOT NULL CHECK (amount > 0),
    firstname           text NOT NULL,
    lastname            text NOT NULL,
    external_id         text NOT NULL,
    status              text NOT NULL CHECK (status IN ('DRAFT', 'PENDING', 'CANCELLED', 'SETTLED', 'DELETED')),
    is_member           boolean NOT NULL,
    created_at          bigint NOT NULL,
    submitted_at        bigint,
    settled_at          bigint,
    reversal_due_at     bigint,
    cancelled_at        bigint,
    referral_amount     bigint NOT NULL CHECK (referral_amount >= 0),
    referral_msisdn     text NOT NULL,
    referral_status     text NOT NULL CHECK (referral_status IN ('', 'DRAFT', 'PENDING', 'CANCELLED', 'SETTLED', 'DELETED')),
    referral_settled_at bigint,
    -- A state implies its timestamps (docs/states.md).
    CHECK (status NOT IN ('PENDING', 'SETTLED') OR submitted_at IS NOT NULL),
    CHECK (status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (status <> 'SETTLED' OR settled_at IS NOT NULL),
    CHECK (status <> 'CANCELLED' OR cancelled_at IS NOT NULL),
    CHECK (referral_status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (referral_status <> 'SETTLED' OR referral_settled_at IS NOT NULL),
    CHECK ((referral_amount > 0) = (referral_msisdn <> ''))
);

-- Payments: a batch's payments in the order added.
CREATE INDEX payments_batch ON payments (batch_id, seq);
-- LockPendingLegsTo: the legs waiting for an msisdn to register.
CREATE INDEX payments_pending_msisdn ON payments (msisdn) WHERE status = 'PENDING';
CREATE INDEX payments_pending_referral ON payments (referral_msisdn) WHERE referral_status = 'PENDING';
-- ClaimDueLegs: the legs due for reversal.
CREATE INDEX payments_due ON payments (reversal_due_at)
    WHERE status = 'PENDING' OR referral_status = 'PENDING';
-- ExternalIDsInUse: unique among an organisation's non-deleted payments.
CREATE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND status <> 'DELETED';

CREATE TABLE transfers (
    id              uuid PRIMARY KEY,
    from_account_id uuid NOT NULL REFERENCES accounts (id),
    to_account_id   uuid NOT NULL REFERENCES accounts (id),
    amount          bigint NOT NULL CHECK (amount > 0),
    kind            text NOT NULL CHECK (kind IN ('DEPOSIT', 'PAY', 'HOLD', 'SETTLE', 'REVERSE', 'CANCEL')),
    payment_id      uuid REFERENCES payments (id),
    leg             text CHECK (leg IN ('PAYMENT', 'REFERRAL')),
    reference       text NOT NULL,
    created_at      bigint NOT NULL,
    CHECK (from_account_id <> to_account_id),
    -- Every movement but a deposit belongs to one leg of one payment.
    CHECK ((kind = 'DEPOSIT') = (payment_id IS NULL)),
    CHECK ((payment_id IS NULL) = (leg IS NULL))
);

CREATE INDEX transfers_to_account ON transfers (to_account_id);
CREATE INDEX transfers_from_account ON transfers (from_account_id);
CREATE INDEX transfers_payment ON transfers (payment_id, leg) WHERE payment_id IS NOT NULL;

CREATE TABLE notifications (
    id              uuid PRIMARY KEY,
    channel         text NOT NULL CHECK (channel IN ('SMS', 'PUSH')),
    recipient       text NOT NULL,
    message         text NOT NULL,
    status          text NOT NULL CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts        bigint NOT NULL CHECK (attempts >= 0),
    next_attempt_at bigint NOT NULL,
    lease_until     bigint,
    lease_owner     text NOT NULL,
    last_error      text NOT NULL,
    created_at      bigint NOT NULL,
    sent_at         bigint,
    CHECK (status <> 'SENT' OR sent_at IS NOT NULL)
);

-- ClaimNotifications: the pending ones, by when they are due.
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'PENDING';
-- Notifications(recipient), oldest first.
CREATE INDEX notifications_recipient ON notifications (recipient, created_at);
CREATE INDEX notifications_lease_owner ON notifications (lease_owner) WHERE lease_owner <> '';

-- +goose Down
DROP TABLE notifications;
DROP TABLE transfers;
DROP TABLE payments;
DROP TABLE batches;
DROP TABLE members;
DROP TABLE tokens;
DROP TABLE api_keys;
ALTER TABLE organisations DROP CONSTRAINT organisations_holding_account_id_fkey;
DROP TABLE accounts;
DROP TABLE organisations;
