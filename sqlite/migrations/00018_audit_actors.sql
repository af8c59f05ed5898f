-- Every audit entry names its actor by kind, id and name (docs/api.md
-- section 7, "Audit log"), and keeps its details as one JSON object: a
-- change of state as {"before": …, "after": …}, an event as its facts.
-- The actions become dotted names in the past tense.

-- +goose Up
ALTER TABLE audit_log ADD COLUMN actor_type TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN actor_id TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN details TEXT NOT NULL DEFAULT '{}';
UPDATE audit_log SET
    actor_type = CASE actor WHEN 'operator API' THEN 'operatorToken' WHEN 'command line' THEN 'commandLine' ELSE 'portalUser' END,
    actor_id = CASE actor WHEN 'operator API' THEN '' WHEN 'command line' THEN '' ELSE COALESCE((SELECT u.id FROM portal_users u WHERE u.email = audit_log.actor), '') END,
    actor = CASE actor WHEN 'operator API' THEN 'bootstrap' ELSE actor END,
    details = CASE
        WHEN before = '' AND after = '' THEN '{}'
        WHEN before = '' THEN after
        ELSE '{"before":' || before || ',"after":' || CASE WHEN after = '' THEN 'null' ELSE after END || '}' END,
    action = CASE action
        WHEN 'organisation.create' THEN 'organisation.created'
        WHEN 'organisation.settings' THEN 'settings.changed'
        WHEN 'account.create' THEN 'account.created'
        WHEN 'account.deposit' THEN 'account.deposited'
        WHEN 'apikey.issue' THEN 'apiKey.issued'
        WHEN 'apikey.revoke' THEN 'apiKey.revoked'
        WHEN 'member.register' THEN 'member.registered'
        ELSE action END;
-- One SQLite process serves a database, so no older release writes
-- before and after during an upgrade (PostgreSQL keeps them a release).
ALTER TABLE audit_log DROP COLUMN before;
ALTER TABLE audit_log DROP COLUMN after;
-- The operator's list narrowed to one action, newest first.
CREATE INDEX audit_log_action ON audit_log (action, at, id);

-- +goose Down
DROP INDEX audit_log_action;
ALTER TABLE audit_log ADD COLUMN before TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN after TEXT NOT NULL DEFAULT '';
UPDATE audit_log SET after = details;
ALTER TABLE audit_log DROP COLUMN details;
ALTER TABLE audit_log DROP COLUMN actor_id;
ALTER TABLE audit_log DROP COLUMN actor_type;
