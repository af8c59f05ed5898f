-- The floor of POST /batches (docs/benchmarks.md, "Small requests"): the
-- statements the service runs for one request (-M prepared: each :name a parameter), with none of its HTTP, Go or
-- checks. pgbench runs this file once a transaction, with the variables
-- `disburse bench --small-requests` passes (-D): hash, the token's hash;
-- org, the organisation; account, its payout account; key, the API key that
-- is the audit entry's actor; now, microseconds since 1970.
--
--   pgbench -n -M prepared -c C -j 2 -T SECONDS -f small_write_floor.sql \
--     -D hash=... -D org=... -D account=... -D key=... -D now=... DATABASE
--
-- The token's lookup, one statement outside the transaction, as the service
-- reads it (sqlstore/lookup.go).
SELECT t.hash, t.api_key_id, t.organisation_id, t.expires_at, t.created_at, k.revoked_at, k.prefix, k.role,
  (SELECT o.api_version FROM organisations o WHERE o.id = t.organisation_id)
  FROM tokens t JOIN api_keys k ON k.id = t.api_key_id WHERE t.hash = :hash;
BEGIN;
-- The payout accounts, to find the default one (batch.go, CreateBatch).
SELECT a.id, a.organisation_id, a.kind, a.name, a.currency, a.balance, a.is_default, a.msisdn, a.created_at,
  a.sandbox_organisation_id,
  (SELECT CAST(COALESCE(SUM(b.held_amount), 0) AS BIGINT) FROM batches b WHERE b.account_id = a.id)
  FROM accounts a WHERE a.organisation_id = :org AND a.kind = 'PAYOUT'
  ORDER BY a.created_at, a.id;
INSERT INTO batches (id, organisation_id, account_id, name, external_id, status,
  payments_amount, payments_count, referrals_amount, draft_amount, draft_count,
  pending_amount, pending_count, settled_amount, settled_count,
  cancelled_amount, cancelled_count, held_amount,
  created_at, submitted_at, closed_at, reversal_due_at, approval_id)
  VALUES (gen_random_uuid(), :org, :account, 'small write', '', 'DRAFT', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  :now, NULL, NULL, NULL, NULL);
INSERT INTO audit_log (id, at, actor_type, actor_id, actor, action, organisation_id, subject, details)
  VALUES (gen_random_uuid(), :now, 'apiKey', :key, 'dak_xxxxxx', 'batch.created', :org, gen_random_uuid()::text,
  '{"externalId":"","name":"small write","status":"DRAFT"}');
COMMIT;
