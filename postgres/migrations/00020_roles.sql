-- Roles in an organisation (docs/api.md section 3.1): an API key has one,
-- which its access tokens act with; a portal user of an organisation has
-- one or more, joined by commas ("maker,approver"). The defaults make
-- every key and organisation user there was an admin, as they could do
-- everything before, and keep a release before this one working while
-- it runs beside this one: what it inserts gets the default. Operators
-- hold no organisation role.
--
-- Invitations: an organisation admin invites someone by email with their
-- roles; the link carries a one-time token, of which only the hash is
-- kept, until it expires. One invitation per email in an organisation:
-- inviting again replaces it.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'admin'
    CHECK (role IN ('viewer', 'maker', 'approver', 'admin'));
ALTER TABLE portal_users ADD COLUMN roles text NOT NULL DEFAULT 'admin';
UPDATE portal_users SET roles = '' WHERE role = 'operator';

CREATE TABLE portal_invitations (
    id              uuid PRIMARY KEY,
    organisation_id uuid NOT NULL REFERENCES organisations (id),
    email           text NOT NULL,
    roles           text NOT NULL CHECK (roles <> ''),
    hash            text NOT NULL UNIQUE,
    created_at      bigint NOT NULL,
    expires_at      bigint NOT NULL,
    UNIQUE (organisation_id, email)
);
-- An organisation's users, for its Users page and its last admin's check.
CREATE INDEX portal_users_organisation ON portal_users (organisation_id, email);

-- +goose Down
DROP INDEX portal_users_organisation;
DROP TABLE portal_invitations;
ALTER TABLE portal_users DROP COLUMN roles;
ALTER TABLE api_keys DROP COLUMN role;
