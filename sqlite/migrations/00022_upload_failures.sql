-- An upload keeps what it found wrong (docs/portal.md, "Organisation
-- users"): the file's lines, how many failures, and the first of them (at
-- most backoffice.UploadFailuresKept, as JSON), so that the batch page
-- shows them again after a reload, until the batch's next upload.
-- portal_uploads_batch finds a batch's last upload, for its page and for
-- the purge, which keeps a draft batch's last upload while it failed.

-- +goose Up
ALTER TABLE portal_uploads ADD COLUMN lines INTEGER NOT NULL DEFAULT 0 CHECK (lines >= 0);
ALTER TABLE portal_uploads ADD COLUMN failure_count INTEGER NOT NULL DEFAULT 0 CHECK (failure_count >= 0);
ALTER TABLE portal_uploads ADD COLUMN failures TEXT NOT NULL DEFAULT '[]';
CREATE INDEX portal_uploads_batch ON portal_uploads (batch_id, created_at, id);

-- +goose Down
DROP INDEX portal_uploads_batch;
ALTER TABLE portal_uploads DROP COLUMN failures;
ALTER TABLE portal_uploads DROP COLUMN failure_count;
ALTER TABLE portal_uploads DROP COLUMN lines;
