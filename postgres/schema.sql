-- The schema postgres/migrations build, written by TestSchemaFile from the
-- catalog: read it, do not edit it (DISBURSE_UPDATE_SCHEMA=1 go test -run
-- TestSchemaFile ./postgres).

CREATE TABLE accounts (
    id uuid NOT NULL,
    organisation_id uuid,
    kind text NOT NULL,
    name text NOT NULL,
    currency text NOT NULL,
    balance bigint DEFAULT 0 NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    msisdn text DEFAULT ''::text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT accounts_balance_check CHECK (((balance >= 0) OR (kind = 'FUNDING'::text))),
    CONSTRAINT accounts_check CHECK (((kind = 'WALLET'::text) = (msisdn <> ''::text))),
    CONSTRAINT accounts_check1 CHECK (((kind = ANY (ARRAY['PAYOUT'::text, 'HOLDING'::text])) = (organisation_id IS NOT NULL))),
    CONSTRAINT accounts_kind_check CHECK ((kind = ANY (ARRAY['PAYOUT'::text, 'HOLDING'::text, 'WALLET'::text, 'FUNDING'::text]))),
    CONSTRAINT accounts_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id) DEFERRABLE INITIALLY DEFERRED,
    CONSTRAINT accounts_pkey PRIMARY KEY (id)
);
CREATE INDEX accounts_organisation ON accounts USING btree (organisation_id, created_at) WHERE (organisation_id IS NOT NULL);
CREATE UNIQUE INDEX accounts_wallet ON accounts USING btree (msisdn, currency) WHERE (kind = 'WALLET'::text);

CREATE TABLE api_keys (
    id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    hash text NOT NULL,
    prefix text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    CONSTRAINT api_keys_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT api_keys_pkey PRIMARY KEY (id),
    CONSTRAINT api_keys_hash_key UNIQUE (hash)
);

CREATE TABLE audit_log (
    id uuid NOT NULL,
    at bigint NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    organisation_id uuid,
    subject text NOT NULL,
    before text NOT NULL,
    after text NOT NULL,
    CONSTRAINT audit_log_pkey PRIMARY KEY (id)
);
CREATE INDEX audit_log_at ON audit_log USING btree (at, id);
CREATE INDEX audit_log_organisation ON audit_log USING btree (organisation_id, at, id);

CREATE TABLE batches (
    id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    account_id uuid NOT NULL,
    name text NOT NULL,
    external_id text NOT NULL,
    status text NOT NULL,
    payments_amount bigint NOT NULL,
    payments_count bigint NOT NULL,
    referrals_amount bigint NOT NULL,
    draft_amount bigint NOT NULL,
    draft_count bigint NOT NULL,
    pending_amount bigint NOT NULL,
    pending_count bigint NOT NULL,
    settled_amount bigint NOT NULL,
    settled_count bigint NOT NULL,
    cancelled_amount bigint NOT NULL,
    cancelled_count bigint NOT NULL,
    held_amount bigint NOT NULL,
    created_at bigint NOT NULL,
    submitted_at bigint,
    closed_at bigint,
    reversal_due_at bigint,
    CONSTRAINT batches_check CHECK (((status = ANY (ARRAY['DRAFT'::text, 'CANCELLED'::text])) OR (submitted_at IS NOT NULL))),
    CONSTRAINT batches_check1 CHECK (((status = ANY (ARRAY['DRAFT'::text, 'OPEN'::text])) OR (closed_at IS NOT NULL))),
    CONSTRAINT batches_held_amount_check CHECK ((held_amount >= 0)),
    CONSTRAINT batches_status_check CHECK ((status = ANY (ARRAY['DRAFT'::text, 'OPEN'::text, 'CLOSED'::text, 'CANCELLED'::text]))),
    CONSTRAINT batches_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id),
    CONSTRAINT batches_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT batches_pkey PRIMARY KEY (id)
);
CREATE INDEX batches_account ON batches USING btree (account_id);
CREATE INDEX batches_created ON batches USING btree (created_at, id);
CREATE INDEX batches_organisation ON batches USING btree (organisation_id, created_at DESC, id DESC);
CREATE INDEX batches_reversal_due ON batches USING btree (reversal_due_at, id) WHERE (status = 'OPEN'::text);

CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key_hash text NOT NULL,
    fingerprint text NOT NULL,
    owner text NOT NULL,
    done boolean DEFAULT false NOT NULL,
    lease_until bigint NOT NULL,
    status integer DEFAULT 0 NOT NULL,
    answer bytea,
    ref_kind text DEFAULT ''::text NOT NULL,
    ref_id text DEFAULT ''::text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key_hash)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys USING btree (created_at);

CREATE TABLE member_checks (
    batch_id uuid NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT member_checks_pkey PRIMARY KEY (batch_id)
);

CREATE TABLE members (
    msisdn text NOT NULL,
    firstname text NOT NULL,
    lastname text NOT NULL,
    app_installed boolean NOT NULL,
    registered_at bigint NOT NULL,
    CONSTRAINT members_pkey PRIMARY KEY (msisdn)
);

CREATE TABLE notifications (
    id uuid NOT NULL,
    channel text NOT NULL,
    recipient text NOT NULL,
    message text NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL,
    next_attempt_at bigint NOT NULL,
    lease_until bigint,
    lease_owner text NOT NULL,
    last_error text NOT NULL,
    created_at bigint NOT NULL,
    sent_at bigint,
    CONSTRAINT notifications_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT notifications_channel_check CHECK ((channel = ANY (ARRAY['SMS'::text, 'PUSH'::text]))),
    CONSTRAINT notifications_check CHECK (((status <> 'SENT'::text) OR (sent_at IS NOT NULL))),
    CONSTRAINT notifications_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SENT'::text, 'FAILED'::text]))),
    CONSTRAINT notifications_pkey PRIMARY KEY (id)
);
CREATE INDEX notifications_done ON notifications USING btree (status, channel, id) WHERE (status <> 'PENDING'::text);
CREATE INDEX notifications_due ON notifications USING btree (next_attempt_at, id) WHERE (status = 'PENDING'::text);
CREATE INDEX notifications_recipient ON notifications USING btree (recipient, created_at);

CREATE TABLE organisations (
    id uuid NOT NULL,
    name text NOT NULL,
    currency text NOT NULL,
    referrals_enabled boolean NOT NULL,
    reversal_period_us bigint NOT NULL,
    holding_account_id uuid,
    created_at bigint NOT NULL,
    CONSTRAINT organisations_reversal_period_us_check CHECK ((reversal_period_us >= 0)),
    CONSTRAINT organisations_holding_account_id_fkey FOREIGN KEY (holding_account_id) REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED,
    CONSTRAINT organisations_pkey PRIMARY KEY (id)
);

CREATE TABLE payments (
    seq bigint NOT NULL,
    id uuid NOT NULL,
    batch_id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    msisdn text NOT NULL,
    amount bigint NOT NULL,
    firstname text NOT NULL,
    lastname text NOT NULL,
    external_id text NOT NULL,
    status text NOT NULL,
    is_member boolean NOT NULL,
    created_at bigint NOT NULL,
    submitted_at bigint,
    settled_at bigint,
    reversal_due_at bigint,
    cancelled_at bigint,
    referral_amount bigint NOT NULL,
    referral_msisdn text NOT NULL,
    referral_status text NOT NULL,
    referral_settled_at bigint,
    referral_held boolean GENERATED ALWAYS AS ((referral_status = 'PENDING'::text)) STORED,
    held_external_id text,
    held boolean GENERATED ALWAYS AS (((status = 'PENDING'::text) OR ((status = 'DRAFT'::text) AND (NOT is_member)))) STORED,
    CONSTRAINT payments_amount_check CHECK ((amount > 0)),
    CONSTRAINT payments_check CHECK (((status <> ALL (ARRAY['PENDING'::text, 'SETTLED'::text])) OR (submitted_at IS NOT NULL))),
    CONSTRAINT payments_check1 CHECK (((status <> 'PENDING'::text) OR (reversal_due_at IS NOT NULL))),
    CONSTRAINT payments_check2 CHECK (((status <> 'SETTLED'::text) OR (settled_at IS NOT NULL))),
    CONSTRAINT payments_check3 CHECK (((status <> 'CANCELLED'::text) OR (cancelled_at IS NOT NULL))),
    CONSTRAINT payments_check4 CHECK (((referral_status <> 'PENDING'::text) OR (reversal_due_at IS NOT NULL))),
    CONSTRAINT payments_check5 CHECK (((referral_status <> 'SETTLED'::text) OR (referral_settled_at IS NOT NULL))),
    CONSTRAINT payments_check6 CHECK (((referral_amount > 0) = (referral_msisdn <> ''::text))),
    CONSTRAINT payments_referral_amount_check CHECK ((referral_amount >= 0)),
    CONSTRAINT payments_referral_status_check CHECK ((referral_status = ANY (ARRAY[''::text, 'DRAFT'::text, 'PENDING'::text, 'CANCELLED'::text, 'SETTLED'::text, 'DELETED'::text]))),
    CONSTRAINT payments_status_check CHECK ((status = ANY (ARRAY['DRAFT'::text, 'PENDING'::text, 'CANCELLED'::text, 'SETTLED'::text, 'DELETED'::text]))),
    CONSTRAINT payments_pkey PRIMARY KEY (id)
);
CREATE INDEX payments_batch ON payments USING btree (batch_id, seq);
CREATE UNIQUE INDEX payments_external_id ON payments USING btree (organisation_id, held_external_id) WHERE (held_external_id IS NOT NULL);
CREATE INDEX payments_held_batch ON payments USING btree (batch_id, seq) WHERE (held OR referral_held);
CREATE INDEX payments_held_msisdn ON payments USING btree (msisdn) WHERE held;
CREATE INDEX payments_held_referral ON payments USING btree (referral_msisdn) WHERE referral_held;

CREATE TABLE portal_sessions (
    hash text NOT NULL,
    user_id uuid NOT NULL,
    created_at bigint NOT NULL,
    last_seen_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    CONSTRAINT portal_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES portal_users(id),
    CONSTRAINT portal_sessions_pkey PRIMARY KEY (hash)
);
CREATE INDEX portal_sessions_expires ON portal_sessions USING btree (expires_at);

CREATE TABLE portal_uploads (
    id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    batch_id uuid NOT NULL,
    phase text NOT NULL,
    done bigint NOT NULL,
    total bigint NOT NULL,
    rows_read bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT portal_uploads_done_check CHECK ((done >= 0)),
    CONSTRAINT portal_uploads_phase_check CHECK ((phase = ANY (ARRAY['RECEIVING'::text, 'CHECKING'::text, 'ADDING'::text, 'DONE'::text]))),
    CONSTRAINT portal_uploads_rows_read_check CHECK ((rows_read >= 0)),
    CONSTRAINT portal_uploads_total_check CHECK ((total >= 0)),
    CONSTRAINT portal_uploads_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES batches(id),
    CONSTRAINT portal_uploads_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT portal_uploads_pkey PRIMARY KEY (id)
);
CREATE INDEX portal_uploads_updated ON portal_uploads USING btree (updated_at);

CREATE TABLE portal_users (
    id uuid NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    organisation_id uuid,
    created_at bigint NOT NULL,
    CONSTRAINT portal_users_check CHECK (((role = 'organisation'::text) = (organisation_id IS NOT NULL))),
    CONSTRAINT portal_users_role_check CHECK ((role = ANY (ARRAY['operator'::text, 'organisation'::text]))),
    CONSTRAINT portal_users_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT portal_users_pkey PRIMARY KEY (id),
    CONSTRAINT portal_users_email_key UNIQUE (email)
);

CREATE TABLE tokens (
    hash text NOT NULL,
    api_key_id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT tokens_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys(id),
    CONSTRAINT tokens_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT tokens_pkey PRIMARY KEY (hash)
);
CREATE INDEX tokens_api_key ON tokens USING btree (api_key_id);
CREATE INDEX tokens_expires ON tokens USING btree (expires_at);

CREATE TABLE transfers (
    id uuid NOT NULL,
    from_account_id uuid NOT NULL,
    to_account_id uuid NOT NULL,
    amount bigint NOT NULL,
    kind text NOT NULL,
    payment_id uuid,
    leg text,
    reference text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT transfers_amount_check CHECK ((amount > 0)),
    CONSTRAINT transfers_check CHECK ((from_account_id <> to_account_id)),
    CONSTRAINT transfers_check1 CHECK (((kind = 'DEPOSIT'::text) = (payment_id IS NULL))),
    CONSTRAINT transfers_check2 CHECK (((payment_id IS NULL) = (leg IS NULL))),
    CONSTRAINT transfers_kind_check CHECK ((kind = ANY (ARRAY['DEPOSIT'::text, 'PAY'::text, 'HOLD'::text, 'SETTLE'::text, 'REVERSE'::text, 'CANCEL'::text]))),
    CONSTRAINT transfers_leg_check CHECK ((leg = ANY (ARRAY['PAYMENT'::text, 'REFERRAL'::text]))),
    CONSTRAINT transfers_pkey PRIMARY KEY (id)
);
CREATE INDEX transfers_payment ON transfers USING btree (payment_id);
CREATE INDEX transfers_to_wallet ON transfers USING btree (to_account_id) WHERE (kind = ANY (ARRAY['PAY'::text, 'SETTLE'::text]));

CREATE TABLE webhook_deliveries (
    id uuid NOT NULL,
    endpoint_id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    event_type text NOT NULL,
    resource_id uuid NOT NULL,
    event_at bigint NOT NULL,
    status text NOT NULL,
    attempts bigint NOT NULL,
    next_attempt_at bigint NOT NULL,
    lease_until bigint,
    lease_owner text NOT NULL,
    last_status_code bigint NOT NULL,
    last_error text NOT NULL,
    created_at bigint NOT NULL,
    delivered_at bigint,
    CONSTRAINT webhook_deliveries_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT webhook_deliveries_check CHECK (((status <> 'DELIVERED'::text) OR (delivered_at IS NOT NULL))),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'DELIVERED'::text, 'FAILED'::text]))),
    CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries USING btree (next_attempt_at, id) WHERE (status = 'PENDING'::text);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries USING btree (endpoint_id, created_at);

CREATE TABLE webhook_endpoints (
    id uuid NOT NULL,
    organisation_id uuid NOT NULL,
    url text NOT NULL,
    events text NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason text NOT NULL,
    secret text NOT NULL,
    previous_secret text NOT NULL,
    previous_secret_until bigint,
    failing_since bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT webhook_endpoints_organisation_id_fkey FOREIGN KEY (organisation_id) REFERENCES organisations(id),
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id)
);
CREATE INDEX webhook_endpoints_organisation ON webhook_endpoints USING btree (organisation_id, created_at);
