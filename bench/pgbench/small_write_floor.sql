-- The floor of POST /batches (docs/benchmarks.md, "Small requests"): the
-- statements the service runs for one request (-M prepared: each :name a parameter), with none of its HTTP, Go or
-- checks. pgbench runs this file once a transaction, with the variables
-- `disburse bench --small-requests` passes (-D): hash, the token's hash
-- (unused since the token is kept); org, the organisation; account, its payout account; key, the API key that
-- is the audit entry's actor; now, microseconds since 1970.
--
--   pgbench -n -M prepared -c C -j 2 -T SECONDS -f small_write_floor.sql \
--     -D hash=... -D org=... -D account=... -D key=... -D now=... DATABASE
--
-- No token lookup: the service keeps a token it has read for a second
-- (sqlstore/token_cache.go), so its requests do not read it; a second of
-- the bench's load reads it once.
BEGIN;
-- The default payout account's id (batch.go, CreateBatch; sqlstore/accounts.go,
-- PayoutAccountID).
SELECT a.id FROM accounts a WHERE a.organisation_id = :org AND a.kind = 'PAYOUT' AND a.is_default
  ORDER BY a.created_at DESC, a.id DESC LIMIT 1;
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
