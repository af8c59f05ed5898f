-- The schema of docs/ledger.md. Conventions, shared with postgres/:
--   * times are INTEGER unix microseconds UTC, NULL for "not yet";
--   * money is INTEGER minor units (cents);
--   * ids are lower-case UUID text;
--   * optional text is '' (NOT NULL); optional references are NULL.
-- Tables are STRICT so that a value of the wrong type is an error, not a
-- silent conversion.

-- +goose Up
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

-- One wallet per msisdn and currency: EnsureWallets relies on it.
CREATE UNIQUE INDEX accounts_wallet ON accounts (msisdn, currency) WHERE kind = 'WALLET';
CREATE INDEX accounts_organisation ON accounts (organisation_id, created_at) WHERE organisation_id IS NOT NULL;

-- The funding account is the outside world, deposits come from it. It is
-- ONE row, in no currency (''): disburse.FundingAccountID is a constant the
-- Deposit use case draws from whatever the payout account's currency. Its
-- balance is minus everything ever deposited, so the ledger audit checks
-- that all balances sum to zero overall, and per currency that the other
-- accounts' balances sum to the funding account's net flow in that currency.
INSERT INTO accounts (id, kind, name, currency, balance, created_at)
VALUES ('00000000-0000-7000-8000-000000000000', 'FUNDING', 'Funding', '', 0, 0);

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    hash            TEXT NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    revoked_at      INTEGER
) STRICT;

CREATE TABLE tokens (
    hash            TEXT PRIMARY KEY,
    api_key_id      TEXT NOT NULL REFERENCES api_keys (id),
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    expires_at      INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX tokens_api_key ON tokens (api_key_id);

CREATE TABLE members (
    msisdn        TEXT PRIMARY KEY,
    firstname     TEXT NOT NULL,
    lastname      TEXT NOT NULL,
    app_installed INTEGER NOT NULL CHECK (app_installed IN (0, 1)),
    registered_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

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
    closed_at        INTEGER,
    CHECK (status IN ('DRAFT', 'CANCELLED') OR submitted_at IS NOT NULL),
    CHECK (status IN ('DRAFT', 'OPEN') OR closed_at IS NOT NULL)
) STRICT;

-- GET /batches: newest first, ties by id.
CREATE INDEX batches_organisation ON batches (organisation_id, created_at DESC, id DESC);
-- HeldBalance of a payout account sums its batches.
CREATE INDEX batches_account ON batches (account_id);

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
    referral_settled_at INTEGER,
    -- A state implies its timestamps (docs/states.md).
    CHECK (status NOT IN ('PENDING', 'SETTLED') OR submitted_at IS NOT NULL),
    CHECK (status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (status <> 'SETTLED' OR settled_at IS NOT NULL),
    CHECK (status <> 'CANCELLED' OR cancelled_at IS NOT NULL),
    CHECK (referral_status <> 'PENDING' OR reversal_due_at IS NOT NULL),
    CHECK (referral_status <> 'SETTLED' OR referral_settled_at IS NOT NULL),
    CHECK ((referral_amount > 0) = (referral_msisdn <> ''))
) STRICT;

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

CREATE INDEX transfers_to_account ON transfers (to_account_id);
CREATE INDEX transfers_from_account ON transfers (from_account_id);
CREATE INDEX transfers_payment ON transfers (payment_id, leg) WHERE payment_id IS NOT NULL;

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
DROP TABLE accounts;
DROP TABLE organisations;
