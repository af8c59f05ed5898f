-- Sandbox organisations (docs/sandbox.md), as on PostgreSQL (its
-- 00023_sandbox.sql says why each part is there): the organisation's
-- flag, the accounts' scope, SANDBOX_WALLET accounts with their own
-- unique indexes, and sandbox_members. accounts_wallet and members'
-- primary key stay as they are.
--
-- SQLite cannot drop or change a CHECK constraint with ALTER TABLE, and
-- rebuilding accounts would rebuild every index on it. So the two CHECKs
-- that name the kinds are loosened in place, the way SQLite documents for
-- removing or relaxing a CHECK (https://sqlite.org/lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"): the table's CREATE text
-- in sqlite_schema is edited, which changes nothing on disk, and
-- writable_schema = RESET reloads the schema. Every existing row met the
-- stricter checks. A SQLite database is upgraded with its one process
-- stopped (docs/operations.md "Upgrading a fleet"), so no other
-- connection holds the old schema.

-- +goose Up
ALTER TABLE organisations ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));
ALTER TABLE accounts ADD COLUMN sandbox_organisation_id TEXT;

PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(replace(sql,
        'CHECK (kind IN (''PAYOUT'', ''HOLDING'', ''WALLET'', ''FUNDING''))',
        'CHECK (kind IN (''PAYOUT'', ''HOLDING'', ''WALLET'', ''FUNDING'', ''SANDBOX_WALLET''))'),
        'CHECK ((kind = ''WALLET'') = (msisdn <> ''''))',
        'CHECK ((kind IN (''WALLET'', ''SANDBOX_WALLET'')) = (msisdn <> ''''))')
    WHERE type = 'table' AND name = 'accounts';
PRAGMA writable_schema = RESET;

-- A sandbox's wallet of a payee, and its funding account: one each.
CREATE UNIQUE INDEX accounts_sandbox_wallet ON accounts (sandbox_organisation_id, msisdn) WHERE kind = 'SANDBOX_WALLET';
CREATE UNIQUE INDEX accounts_sandbox_funding ON accounts (sandbox_organisation_id)
    WHERE kind = 'FUNDING' AND sandbox_organisation_id IS NOT NULL;

CREATE TABLE sandbox_members (
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    msisdn          TEXT NOT NULL,
    registered_at   INTEGER NOT NULL,
    PRIMARY KEY (organisation_id, msisdn)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE sandbox_members;
DROP INDEX accounts_sandbox_funding;
DROP INDEX accounts_sandbox_wallet;
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(replace(sql,
        'CHECK (kind IN (''PAYOUT'', ''HOLDING'', ''WALLET'', ''FUNDING'', ''SANDBOX_WALLET''))',
        'CHECK (kind IN (''PAYOUT'', ''HOLDING'', ''WALLET'', ''FUNDING''))'),
        'CHECK ((kind IN (''WALLET'', ''SANDBOX_WALLET'')) = (msisdn <> ''''))',
        'CHECK ((kind = ''WALLET'') = (msisdn <> ''''))')
    WHERE type = 'table' AND name = 'accounts';
PRAGMA writable_schema = RESET;
ALTER TABLE accounts DROP COLUMN sandbox_organisation_id;
ALTER TABLE organisations DROP COLUMN sandbox;
