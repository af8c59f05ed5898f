-- Sandbox organisations (docs/sandbox.md): an organisation made as a
-- sandbox keeps its money in a ledger scope of its own, apart from every
-- live organisation's and every other sandbox's (docs/ledger.md,
-- "Scopes").
--
-- Live wallets and members keep their tables and indexes: the live
-- submit's and registration's statements, those of the release before
-- this one included, use accounts_wallet (ON CONFLICT (msisdn, currency)
-- WHERE kind = 'WALLET') and members' primary key, so neither is rebuilt.
-- A sandbox's payees are members of that sandbox only (sandbox_members)
-- and are paid into wallets of their own kind, SANDBOX_WALLET, one per
-- payee in each sandbox; a sandbox's deposits come from a FUNDING account
-- of its own. Every account of a sandbox (payout, holding, wallets,
-- funding) names it in sandbox_organisation_id; NULL is the live scope.
--
-- The release before this one runs on this schema unchanged: it never
-- reads the new columns, and what it inserts gets the defaults (a live
-- organisation, a live account). Sandbox organisations are created once
-- every replica runs this release (docs/operations.md "Sandbox
-- organisations").
--
-- The two CHECKs of accounts are replaced by looser ones that admit the
-- new kind. NOT VALID: every row already meets the stricter checks they
-- replace, so PostgreSQL need not read the whole table under the lock
-- this migration holds; new rows are checked all the same.

-- +goose Up
ALTER TABLE organisations ADD COLUMN sandbox boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN sandbox_organisation_id uuid;

ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
    CHECK (kind IN ('PAYOUT', 'HOLDING', 'WALLET', 'FUNDING', 'SANDBOX_WALLET')) NOT VALID;
ALTER TABLE accounts DROP CONSTRAINT accounts_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_check
    CHECK ((kind IN ('WALLET', 'SANDBOX_WALLET')) = (msisdn <> '')) NOT VALID;

-- A sandbox's wallet of a payee, and its funding account: one each.
CREATE UNIQUE INDEX accounts_sandbox_wallet ON accounts (sandbox_organisation_id, msisdn) WHERE kind = 'SANDBOX_WALLET';
CREATE UNIQUE INDEX accounts_sandbox_funding ON accounts (sandbox_organisation_id)
    WHERE kind = 'FUNDING' AND sandbox_organisation_id IS NOT NULL;

CREATE TABLE sandbox_members (
    organisation_id uuid NOT NULL REFERENCES organisations (id),
    msisdn          text NOT NULL,
    registered_at   bigint NOT NULL,
    PRIMARY KEY (organisation_id, msisdn)
);

-- +goose Down
DROP TABLE sandbox_members;
DROP INDEX accounts_sandbox_funding;
DROP INDEX accounts_sandbox_wallet;
ALTER TABLE accounts DROP CONSTRAINT accounts_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_check CHECK ((kind = 'WALLET') = (msisdn <> '')) NOT VALID;
ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('PAYOUT', 'HOLDING', 'WALLET', 'FUNDING')) NOT VALID;
ALTER TABLE accounts DROP COLUMN sandbox_organisation_id;
ALTER TABLE organisations DROP COLUMN sandbox;
