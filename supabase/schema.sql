-- The schema as supabase/migrations/ leaves it, through 20261207610000_signed_agents.sql.
-- Generated from the catalogs of a database the migrations built (harness/schema-sql.ts): do not edit.
-- After changing a migration, regenerate it with `npm run schema` and commit it with the migration;
-- tests/server/schema-file.test.ts fails while it is out of date. It is for reading: the migrations
-- are the one source of the schema and what applies it. Grants to the owner are left out, as is its name.

-- Schemas

CREATE SCHEMA IF NOT EXISTS extensions;
CREATE SCHEMA IF NOT EXISTS private;
CREATE SCHEMA IF NOT EXISTS public;

-- Extensions

CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA extensions;

-- Roles the grants and policies name

CREATE ROLE anon NOLOGIN NOINHERIT;
CREATE ROLE authenticated NOLOGIN NOINHERIT;
CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;

-- Tables

CREATE TABLE private.agent_nonces (
    hash bytea NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT agent_nonces_pkey PRIMARY KEY (hash),
    CONSTRAINT agent_nonces_hash_check CHECK ((octet_length(hash) = 32))
);

CREATE TABLE private.audit_entries (
    waitlist_id bigint NOT NULL,
    audit_id bigint NOT NULL,
    CONSTRAINT audit_entries_pkey PRIMARY KEY (waitlist_id, audit_id),
    CONSTRAINT audit_entries_audit_id_fkey FOREIGN KEY (audit_id) REFERENCES private.audit_log(id),
    CONSTRAINT audit_entries_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE
);

CREATE TABLE private.audit_log (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    detail text,
    count integer DEFAULT 0 NOT NULL,
    network cidr,
    CONSTRAINT audit_log_pkey PRIMARY KEY (id),
    CONSTRAINT audit_log_action_check CHECK (((char_length(action) >= 1) AND (char_length(action) <= 40))),
    CONSTRAINT audit_log_actor_check CHECK (((char_length(actor) >= 1) AND (char_length(actor) <= 300))),
    CONSTRAINT audit_log_count_check CHECK ((count >= 0)),
    CONSTRAINT audit_log_detail_check CHECK ((char_length(detail) <= 500))
);

CREATE TABLE private.audit_repeats (
    audit_id bigint NOT NULL,
    fold_key bytea NOT NULL,
    repeats integer DEFAULT 0 NOT NULL,
    CONSTRAINT audit_repeats_pkey PRIMARY KEY (audit_id),
    CONSTRAINT audit_repeats_audit_id_fkey FOREIGN KEY (audit_id) REFERENCES private.audit_log(id),
    CONSTRAINT audit_repeats_fold_key_check CHECK ((octet_length(fold_key) = 32)),
    CONSTRAINT audit_repeats_repeats_check CHECK ((repeats >= 0))
);

CREATE TABLE private.consent_words (
    version text NOT NULL,
    hash bytea NOT NULL,
    text text NOT NULL,
    registered_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT consent_words_pkey PRIMARY KEY (version),
    CONSTRAINT consent_words_hash_key UNIQUE (hash),
    CONSTRAINT consent_words_check CHECK ((version = encode(substr(hash, 1, 8), 'hex'::text))),
    CONSTRAINT consent_words_hash_check CHECK ((octet_length(hash) = 32)),
    CONSTRAINT consent_words_text_check CHECK (((char_length(text) >= 1) AND (char_length(text) <= 4000))),
    CONSTRAINT consent_words_version_check CHECK ((version ~ '^[0-9a-f]{16}$'::text))
);

CREATE TABLE private.entry_answers (
    waitlist_id bigint NOT NULL,
    answers jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT entry_answers_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT entry_answers_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_answers_answers_check CHECK (((jsonb_typeof(answers) = 'object'::text) AND (octet_length((answers)::text) <= 4096)))
);

CREATE TABLE private.entry_details (
    waitlist_id bigint NOT NULL,
    details jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT entry_details_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT entry_details_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_details_details CHECK (((jsonb_typeof(details) = 'object'::text) AND (octet_length((details)::text) <= 8192)))
);

CREATE TABLE private.entry_events (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    waitlist_id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    event text NOT NULL,
    detail text,
    CONSTRAINT entry_events_pkey PRIMARY KEY (id),
    CONSTRAINT entry_events_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_events_detail_check CHECK ((char_length(detail) <= 300)),
    CONSTRAINT entry_events_event_check CHECK (((char_length(event) >= 1) AND (char_length(event) <= 40)))
);

CREATE TABLE private.entry_marks (
    waitlist_id bigint NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    note text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT entry_marks_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT entry_marks_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_marks_note_length CHECK (((char_length(note) >= 1) AND (char_length(note) <= 1000))),
    CONSTRAINT entry_marks_tags_words CHECK (((cardinality(tags) <= 50) AND (array_position(tags, NULL::text) IS NULL) AND (array_to_string(tags, ' '::text) ~ '^([a-z0-9][a-z0-9_-]{0,31}( [a-z0-9][a-z0-9_-]{0,31})*)?$'::text)))
);

CREATE TABLE private.entry_names (
    waitlist_id bigint NOT NULL,
    name text NOT NULL,
    given_name text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT entry_names_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT entry_names_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_names_given_name CHECK (((given_name IS NULL) OR (((char_length(given_name) >= 1) AND (char_length(given_name) <= 100)) AND (given_name = btrim(given_name))))),
    CONSTRAINT entry_names_name CHECK ((((char_length(name) >= 1) AND (char_length(name) <= 200)) AND (name = btrim(name))))
);

CREATE TABLE private.entry_status (
    waitlist_id bigint NOT NULL,
    status text NOT NULL,
    confirmed_at timestamp with time zone,
    invited_at timestamp with time zone,
    unsubscribed_at timestamp with time zone,
    bounced_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    soft_bounces smallint DEFAULT 0 NOT NULL,
    confirm_sent_at timestamp with time zone,
    mailbox bytea,
    confirmations smallint DEFAULT 0 NOT NULL,
    joined_at timestamp with time zone,
    CONSTRAINT entry_status_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT entry_status_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT entry_status_status_check CHECK ((status = ANY (ARRAY['unconfirmed'::text, 'waiting'::text, 'invited'::text, 'joined'::text, 'bounced'::text, 'unsubscribed'::text, 'complained'::text])))
);

CREATE TABLE private.entry_status_counts (
    status text NOT NULL,
    entries bigint NOT NULL,
    CONSTRAINT entry_status_counts_pkey PRIMARY KEY (status)
);

CREATE TABLE private.entry_status_deltas (
    status text NOT NULL,
    entries bigint NOT NULL
);

CREATE TABLE private.entry_tag_counts (
    tag text NOT NULL,
    entries bigint NOT NULL,
    CONSTRAINT entry_tag_counts_pkey PRIMARY KEY (tag)
);

CREATE TABLE private.entry_tag_deltas (
    tag text NOT NULL,
    entries bigint NOT NULL
);

CREATE TABLE private.invite_batches (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    invited_by text NOT NULL,
    size integer NOT NULL,
    chosen_by text,
    erased integer DEFAULT 0 NOT NULL,
    erased_joined integer DEFAULT 0 NOT NULL,
    CONSTRAINT invite_batches_pkey PRIMARY KEY (id),
    CONSTRAINT invite_batches_chosen_by_check CHECK ((char_length(chosen_by) <= 500)),
    CONSTRAINT invite_batches_erased CHECK ((erased >= 0)),
    CONSTRAINT invite_batches_erased_joined CHECK (((erased_joined >= 0) AND (erased_joined <= erased))),
    CONSTRAINT invite_batches_invited_by_check CHECK ((invited_by = ANY (ARRAY['cli'::text, 'studio'::text]))),
    CONSTRAINT invite_batches_size_check CHECK ((size >= 0))
);

CREATE TABLE private.jwt_secret (
    singleton boolean DEFAULT true NOT NULL,
    secret text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT jwt_secret_pkey PRIMARY KEY (singleton),
    CONSTRAINT jwt_secret_secret_check CHECK ((length(secret) >= 32)),
    CONSTRAINT jwt_secret_singleton_check CHECK (singleton)
);

CREATE TABLE private.mail_event_ids (
    provider text NOT NULL,
    event_id text NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT mail_event_ids_pkey PRIMARY KEY (provider, event_id),
    CONSTRAINT mail_event_ids_event_id_check CHECK ((length(event_id) <= 200))
);

CREATE TABLE private.mail_event_tokens (
    provider text NOT NULL,
    token_hash text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT mail_event_tokens_pkey PRIMARY KEY (provider, token_hash),
    CONSTRAINT mail_event_tokens_token_hash_check CHECK ((length(token_hash) = 64))
);

CREATE TABLE private.mail_health (
    window_started_at timestamp with time zone DEFAULT now() NOT NULL,
    paused_at timestamp with time zone,
    pause_reason text,
    lane smallint NOT NULL,
    CONSTRAINT mail_health_pkey PRIMARY KEY (lane),
    CONSTRAINT mail_health_lane_check CHECK ((lane = ANY (ARRAY[0, 1])))
);

CREATE TABLE private.mail_outbox (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    uuid uuid DEFAULT gen_random_uuid() NOT NULL,
    waitlist_id bigint,
    kind text NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    message_domain text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    queued_at timestamp with time zone DEFAULT now() NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    sent_at timestamp with time zone,
    outcome text,
    test_address text,
    batch_id bigint,
    redeemed_at timestamp with time zone,
    CONSTRAINT mail_outbox_pkey PRIMARY KEY (id),
    CONSTRAINT mail_outbox_uuid_key UNIQUE (uuid),
    CONSTRAINT mail_outbox_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES private.invite_batches(id) ON DELETE SET NULL,
    CONSTRAINT mail_outbox_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT mail_outbox_entry_or_test CHECK (((kind = 'test'::text) OR (waitlist_id IS NOT NULL))),
    CONSTRAINT mail_outbox_kind_check CHECK ((kind = ANY (ARRAY['invitation'::text, 'confirmation'::text, 'test'::text]))),
    CONSTRAINT mail_outbox_outcome_check CHECK ((outcome = ANY (ARRAY['hard'::text, 'complaint'::text]))),
    CONSTRAINT mail_outbox_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text, 'bounced'::text, 'cancelled'::text])))
);

CREATE TABLE private.mail_pace (
    singleton boolean DEFAULT true NOT NULL,
    next_slot timestamp with time zone DEFAULT now() NOT NULL,
    last_lane smallint,
    CONSTRAINT mail_pace_pkey PRIMARY KEY (singleton),
    CONSTRAINT mail_pace_singleton_check CHECK (singleton)
);

CREATE TABLE private.mail_settings (
    singleton boolean DEFAULT true NOT NULL,
    confirm_signups boolean DEFAULT false NOT NULL,
    message_domain text DEFAULT 'localhost'::text NOT NULL,
    sender_configured boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    site_url text,
    mail_from text,
    beta_url text,
    mail_per_minute integer,
    CONSTRAINT mail_settings_pkey PRIMARY KEY (singleton),
    CONSTRAINT mail_settings_singleton_check CHECK (singleton)
);

CREATE TABLE private.network_pauses (
    network cidr NOT NULL,
    paused_at timestamp with time zone DEFAULT now() NOT NULL,
    paused_until timestamp with time zone NOT NULL,
    reason text NOT NULL,
    CONSTRAINT network_pauses_pkey PRIMARY KEY (network),
    CONSTRAINT network_pauses_reason_check CHECK ((char_length(reason) <= 300))
);

CREATE TABLE private.preflight_runs (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    requested_at timestamp with time zone DEFAULT now() NOT NULL,
    requested_by text NOT NULL,
    claimed_at timestamp with time zone,
    checked_at timestamp with time zone,
    mail_from text,
    passed boolean,
    lines jsonb,
    CONSTRAINT preflight_runs_pkey PRIMARY KEY (id),
    CONSTRAINT preflight_runs_checked CHECK (((checked_at IS NULL) = (passed IS NULL)))
);

CREATE TABLE private.proposed_answers (
    waitlist_id bigint NOT NULL,
    answers jsonb NOT NULL,
    proposed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT proposed_answers_pkey PRIMARY KEY (waitlist_id),
    CONSTRAINT proposed_answers_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT proposed_answers_answers_check CHECK (((jsonb_typeof(answers) = 'object'::text) AND (octet_length((answers)::text) <= 4096)))
);

CREATE UNLOGGED TABLE private.rate_limit_buckets (
    key text NOT NULL,
    tokens double precision NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    short double precision DEFAULT 0 NOT NULL,
    CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (key)
);

CREATE TABLE private.source_counts (
    day date NOT NULL,
    source text NOT NULL,
    medium text DEFAULT ''::text NOT NULL,
    campaign text DEFAULT ''::text NOT NULL,
    visits bigint DEFAULT 0 NOT NULL,
    signups bigint DEFAULT 0 NOT NULL,
    visitor_bits bit(65536),
    visitors bigint,
    CONSTRAINT source_counts_pkey PRIMARY KEY (day, source, medium, campaign),
    CONSTRAINT source_counts_campaign_check CHECK ((char_length(campaign) <= 100)),
    CONSTRAINT source_counts_medium_check CHECK ((char_length(medium) <= 100)),
    CONSTRAINT source_counts_signups_check CHECK ((signups >= 0)),
    CONSTRAINT source_counts_source_check CHECK (((char_length(source) >= 1) AND (char_length(source) <= 100))),
    CONSTRAINT source_counts_visitors_check CHECK ((visitors >= 0)),
    CONSTRAINT source_counts_visits_check CHECK ((visits >= 0))
);

CREATE TABLE private.suppressed (
    hash bytea NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    why text NOT NULL,
    CONSTRAINT suppressed_pkey PRIMARY KEY (hash),
    CONSTRAINT suppressed_hash_check CHECK ((octet_length(hash) = 32)),
    CONSTRAINT suppressed_why_check CHECK ((why = ANY (ARRAY['removed'::text, 'erased'::text])))
);

CREATE TABLE private.suppression_key (
    singleton boolean DEFAULT true NOT NULL,
    inner_pad bytea NOT NULL,
    outer_pad bytea NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT suppression_key_pkey PRIMARY KEY (singleton),
    CONSTRAINT suppression_key_inner_pad_check CHECK ((octet_length(inner_pad) = 64)),
    CONSTRAINT suppression_key_outer_pad_check CHECK ((octet_length(outer_pad) = 64)),
    CONSTRAINT suppression_key_singleton_check CHECK (singleton)
);

CREATE TABLE private.team_challenges (
    challenge text NOT NULL,
    purpose text NOT NULL,
    member_id bigint,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT team_challenges_pkey PRIMARY KEY (challenge),
    CONSTRAINT team_challenges_member_id_fkey FOREIGN KEY (member_id) REFERENCES private.team_members(id) ON DELETE CASCADE,
    CONSTRAINT team_challenges_challenge_check CHECK (((char_length(challenge) >= 16) AND (char_length(challenge) <= 128))),
    CONSTRAINT team_challenges_purpose_check CHECK ((purpose = ANY (ARRAY['register'::text, 'sign-in'::text])))
);

CREATE TABLE private.team_enrolments (
    token_hash bytea NOT NULL,
    member_id bigint NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT team_enrolments_pkey PRIMARY KEY (token_hash),
    CONSTRAINT team_enrolments_member_id_key UNIQUE (member_id),
    CONSTRAINT team_enrolments_member_id_fkey FOREIGN KEY (member_id) REFERENCES private.team_members(id) ON DELETE CASCADE,
    CONSTRAINT team_enrolments_token_hash_check CHECK ((octet_length(token_hash) = 32))
);

CREATE TABLE private.team_members (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    email extensions.citext NOT NULL,
    role text NOT NULL,
    user_handle bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT team_members_pkey PRIMARY KEY (id),
    CONSTRAINT team_members_email_key UNIQUE (email),
    CONSTRAINT team_members_user_handle_key UNIQUE (user_handle),
    CONSTRAINT team_members_email_check CHECK (((char_length((email)::text) >= 3) AND (char_length((email)::text) <= 254))),
    CONSTRAINT team_members_role_check CHECK ((role = ANY (ARRAY['viewer'::text, 'member'::text, 'owner'::text]))),
    CONSTRAINT team_members_user_handle_check CHECK ((octet_length(user_handle) = 32))
);

CREATE TABLE private.team_passkeys (
    id text NOT NULL,
    member_id bigint NOT NULL,
    public_key bytea NOT NULL,
    counter bigint DEFAULT 0 NOT NULL,
    transports text[] DEFAULT '{}'::text[] NOT NULL,
    device_type text NOT NULL,
    backed_up boolean NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    CONSTRAINT team_passkeys_pkey PRIMARY KEY (id),
    CONSTRAINT team_passkeys_member_id_fkey FOREIGN KEY (member_id) REFERENCES private.team_members(id) ON DELETE CASCADE,
    CONSTRAINT team_passkeys_counter_check CHECK ((counter >= 0)),
    CONSTRAINT team_passkeys_device_type_check CHECK ((device_type = ANY (ARRAY['singleDevice'::text, 'multiDevice'::text]))),
    CONSTRAINT team_passkeys_id_check CHECK (((char_length(id) >= 16) AND (char_length(id) <= 1400))),
    CONSTRAINT team_passkeys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 60))),
    CONSTRAINT team_passkeys_public_key_check CHECK ((octet_length(public_key) <= 2048)),
    CONSTRAINT team_passkeys_transports_check CHECK ((cardinality(transports) <= 10))
);

CREATE TABLE private.team_sessions (
    token_hash bytea NOT NULL,
    member_id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    passkey_id text NOT NULL,
    device text DEFAULT ''::text NOT NULL,
    network cidr,
    CONSTRAINT team_sessions_pkey PRIMARY KEY (token_hash),
    CONSTRAINT team_sessions_id_key UNIQUE (id),
    CONSTRAINT team_sessions_member_id_fkey FOREIGN KEY (member_id) REFERENCES private.team_members(id) ON DELETE CASCADE,
    CONSTRAINT team_sessions_passkey_id_fkey FOREIGN KEY (passkey_id) REFERENCES private.team_passkeys(id) ON DELETE CASCADE,
    CONSTRAINT team_sessions_device_check CHECK ((char_length(device) <= 60)),
    CONSTRAINT team_sessions_token_hash_check CHECK ((octet_length(token_hash) = 32))
);

CREATE TABLE private.visitor_salts (
    day date NOT NULL,
    salt bytea NOT NULL,
    CONSTRAINT visitor_salts_pkey PRIMARY KEY (day),
    CONSTRAINT visitor_salts_salt_check CHECK ((octet_length(salt) = 32))
);

CREATE TABLE private.waitlist_day_counts (
    day date NOT NULL,
    signups bigint NOT NULL,
    CONSTRAINT waitlist_day_counts_pkey PRIMARY KEY (day)
);

CREATE TABLE private.waitlist_day_deltas (
    day date NOT NULL,
    signups bigint NOT NULL
);

CREATE TABLE private.webhook_deliveries (
    waitlist_id bigint,
    queued_at timestamp with time zone DEFAULT now() NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    delivered_at timestamp with time zone,
    webhook_id uuid DEFAULT gen_random_uuid() NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    event text DEFAULT 'waitlist.signup'::text NOT NULL,
    occurred_at timestamp with time zone,
    detail text,
    erased_email text,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_deliveries_waitlist_id_fkey FOREIGN KEY (waitlist_id) REFERENCES public.waitlist(id) ON DELETE CASCADE,
    CONSTRAINT webhook_deliveries_erased_email_check CHECK (((erased_email IS NULL) OR ((event = 'entry.erased'::text) AND (char_length(erased_email) <= 254)))),
    CONSTRAINT webhook_deliveries_event_check CHECK ((event = ANY (ARRAY['waitlist.signup'::text, 'entry.confirmed'::text, 'entry.answered'::text, 'invitation.sent'::text, 'entry.joined'::text, 'entry.unsubscribed'::text, 'entry.bounced'::text, 'entry.complained'::text, 'mail.paused'::text, 'entry.erased'::text]))),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);

CREATE TABLE private.webhook_settings (
    singleton boolean DEFAULT true NOT NULL,
    enabled boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    events text[],
    CONSTRAINT webhook_settings_pkey PRIMARY KEY (singleton),
    CONSTRAINT webhook_settings_singleton_check CHECK (singleton)
);

CREATE TABLE public.waitlist (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    email extensions.citext NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    source text DEFAULT NULLIF(current_setting('request.source'::text, true), ''::text),
    signup_network cidr DEFAULT (NULLIF(current_setting('request.network'::text, true), ''::text))::cidr,
    consent_at timestamp with time zone DEFAULT now(),
    consent_door text DEFAULT COALESCE(NULLIF(current_setting('request.door'::text, true), ''::text), 'api'::text),
    consent_words text DEFAULT NULLIF(current_setting('request.words'::text, true), ''::text),
    consent_agent jsonb DEFAULT (NULLIF(current_setting('request.agent'::text, true), ''::text))::jsonb,
    confirmed_from cidr,
    CONSTRAINT waitlist_pkey PRIMARY KEY (id),
    CONSTRAINT waitlist_email_key UNIQUE (email),
    CONSTRAINT waitlist_confirmed_from_cut CHECK (((confirmed_from IS NULL) OR (masklen((confirmed_from)::inet) =
CASE family((confirmed_from)::inet)
    WHEN 4 THEN 24
    ELSE 48
END))),
    CONSTRAINT waitlist_consent_agent CHECK (((jsonb_typeof(consent_agent) = 'object'::text) AND (((((((((consent_agent - 'name'::text) - 'version'::text) - 'verified'::text) - 'signature_agent'::text) - 'signature_agent_name'::text) - 'key_id'::text) - 'checked_at'::text) - 'failure'::text) = '{}'::jsonb) AND (COALESCE(jsonb_typeof((consent_agent -> 'name'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'name'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'name'::text)), 1) <= 100)) AND (COALESCE(jsonb_typeof((consent_agent -> 'version'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'version'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'version'::text)), 1) <= 40)) AND (COALESCE(jsonb_typeof((consent_agent -> 'verified'::text)), 'boolean'::text) = 'boolean'::text) AND (COALESCE(jsonb_typeof((consent_agent -> 'signature_agent'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'signature_agent'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'signature_agent'::text)), 1) <= 200)) AND (COALESCE(jsonb_typeof((consent_agent -> 'signature_agent_name'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'signature_agent_name'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'signature_agent_name'::text)), 1) <= 100)) AND (COALESCE(jsonb_typeof((consent_agent -> 'key_id'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'key_id'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'key_id'::text)), 1) <= 100)) AND (COALESCE(jsonb_typeof((consent_agent -> 'checked_at'::text)), 'string'::text) = 'string'::text) AND ((COALESCE(char_length((consent_agent ->> 'checked_at'::text)), 1) >= 1) AND (COALESCE(char_length((consent_agent ->> 'checked_at'::text)), 1) <= 40)) AND (COALESCE((consent_agent ->> 'failure'::text), 'expired'::text) = ANY (ARRAY['expired'::text, 'unknown key'::text, 'bad signature'::text, 'replayed nonce'::text, 'unlisted agent'::text, 'directory unreachable'::text])) AND ((COALESCE(((consent_agent ->> 'verified'::text))::boolean, false) = false) OR ((consent_agent ? 'signature_agent'::text) AND (consent_agent ? 'key_id'::text) AND (NOT (consent_agent ? 'failure'::text)))))),
    CONSTRAINT waitlist_consent_door CHECK ((consent_door = ANY (ARRAY['page'::text, 'form'::text, 'api'::text, 'mcp'::text, 'webmcp'::text, 'import'::text]))),
    CONSTRAINT waitlist_consent_words CHECK ((consent_words ~ '^[0-9a-f]{16}$'::text)),
    CONSTRAINT waitlist_email_format CHECK (((email)::text ~ '^[A-Za-z0-9.!#$%&''*+/=?^_`{|}~-]+@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$'::text)),
    CONSTRAINT waitlist_email_length CHECK ((char_length((email)::text) <= 254)),
    CONSTRAINT waitlist_email_trimmed CHECK (((email)::text = btrim((email)::text))),
    CONSTRAINT waitlist_signup_network_cut CHECK (((signup_network IS NULL) OR (masklen((signup_network)::inet) =
CASE family((signup_network)::inet)
    WHEN 4 THEN 24
    ELSE 64
END))),
    CONSTRAINT waitlist_source_check CHECK (((source IS NULL) OR ((char_length(source) >= 1) AND (char_length(source) <= 100)))),
    CONSTRAINT waitlist_source_one_form CHECK ((source = lower(btrim(source))))
);

-- Indexes

CREATE INDEX agent_nonces_expires_at ON private.agent_nonces USING btree (expires_at);
CREATE INDEX audit_entries_line ON private.audit_entries USING btree (audit_id);
CREATE INDEX audit_log_at ON private.audit_log USING btree (at, id);
CREATE INDEX audit_repeats_fold ON private.audit_repeats USING btree (fold_key, audit_id);
CREATE INDEX entry_answers_values ON private.entry_answers USING gin (answers jsonb_path_ops);
CREATE INDEX entry_events_entry ON private.entry_events USING btree (waitlist_id, id);
CREATE INDEX entry_marks_tags ON private.entry_marks USING gin (tags);
CREATE INDEX entry_names_sort ON private.entry_names USING btree (lower(name), waitlist_id);
CREATE INDEX entry_status_by_status ON private.entry_status USING btree (status);
CREATE INDEX entry_status_mailbox ON private.entry_status USING btree (mailbox) WHERE (mailbox IS NOT NULL);
CREATE INDEX entry_status_unconfirmed ON private.entry_status USING btree (waitlist_id) WHERE (status = 'unconfirmed'::text);
CREATE INDEX mail_event_ids_age ON private.mail_event_ids USING btree (received_at);
CREATE INDEX mail_event_tokens_expiry ON private.mail_event_tokens USING btree (expires_at);
CREATE INDEX mail_outbox_batch ON private.mail_outbox USING btree (batch_id) WHERE (batch_id IS NOT NULL);
CREATE INDEX mail_outbox_due ON private.mail_outbox USING btree (priority, run_at) WHERE (status = 'pending'::text);
CREATE INDEX mail_outbox_entry ON private.mail_outbox USING btree (waitlist_id);
CREATE INDEX mail_outbox_sent_by_lane ON private.mail_outbox USING btree (priority, sent_at DESC) WHERE (sent_at IS NOT NULL);
CREATE INDEX preflight_runs_checked ON private.preflight_runs USING btree (checked_at DESC) WHERE (checked_at IS NOT NULL);
CREATE INDEX team_challenges_expiry ON private.team_challenges USING btree (expires_at);
CREATE INDEX team_passkeys_member ON private.team_passkeys USING btree (member_id);
CREATE INDEX team_sessions_member ON private.team_sessions USING btree (member_id);
CREATE INDEX team_sessions_passkey ON private.team_sessions USING btree (passkey_id);
CREATE INDEX webhook_deliveries_due ON private.webhook_deliveries USING btree (run_at) WHERE (status = 'pending'::text);
CREATE INDEX webhook_deliveries_entry ON private.webhook_deliveries USING btree (waitlist_id);
CREATE INDEX waitlist_created_at_id ON public.waitlist USING btree (created_at, id);
CREATE INDEX waitlist_domain_prefix ON public.waitlist USING btree (lower(split_part((email)::text, '@'::text, 2)) text_pattern_ops);
CREATE INDEX waitlist_email_prefix ON public.waitlist USING btree (lower((email)::text) text_pattern_ops);
CREATE INDEX waitlist_email_search_trgm ON public.waitlist USING gin (replace(replace(replace(replace(lower((email)::text), '.'::text, 'q'::text), '@'::text, 'z'::text), '-'::text, 'x'::text), '_'::text, 'j'::text) extensions.gin_trgm_ops);
CREATE INDEX waitlist_source ON public.waitlist USING btree (source, created_at DESC, id DESC);

-- Functions

CREATE OR REPLACE FUNCTION private.audit_log_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  raise exception 'the audit record is only ever added to' using errcode = '42501';
end
$function$;

CREATE OR REPLACE FUNCTION private.audit_repeats_only_rise()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    if new.audit_id = old.audit_id and new.fold_key = old.fold_key and new.repeats >= old.repeats then
      return new;
    end if;
  end if;
  raise exception 'the audit record is only ever added to' using errcode = '42501';
end
$function$;

CREATE OR REPLACE FUNCTION private.charge_rate_limit(p_key text, p_first integer, p_extra integer, p_per_minute double precision, p_burst double precision)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
declare
  lacking double precision;
  retry integer := 0;
begin
  insert into private.rate_limit_buckets as b (key, tokens, short, updated_at)
    values (
      p_key,
      private.rate_left(p_burst, p_first, p_extra),
      private.rate_short(p_burst, p_first, p_extra),
      clock_timestamp()
    )
  on conflict (key) do update set
    tokens = private.rate_left(
      private.rate_refill(b.tokens, b.updated_at, excluded.updated_at, p_per_minute, p_burst), p_first, p_extra),
    short = private.rate_short(
      private.rate_refill(b.tokens, b.updated_at, excluded.updated_at, p_per_minute, p_burst), p_first, p_extra),
    updated_at = excluded.updated_at
  returning b.short into lacking;
  if lacking > 0 then
    retry := greatest(1, ceil(lacking * 60 / p_per_minute))::integer;
  end if;
  perform set_config('lab.rate_limit_retry', retry::text, true);
  return retry;
end
$function$;

CREATE OR REPLACE FUNCTION private.confirmation_due(box bytea)
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  queued integer;
  last_queued timestamptz;
  refused boolean;
begin
  if not pg_try_advisory_xact_lock(73058712, ('x' || encode(substr(box, 1, 4), 'hex'))::bit(32)::integer) then
    return false;
  end if;
  select coalesce(sum(s.confirmations), 0), max(s.confirm_sent_at),
         coalesce(bool_or(not private.may_mail('test', s.status)), false)
    into queued, last_queued, refused
    from private.entry_status s where s.mailbox = box;
  return not refused and (queued = 0 or last_queued is null
      or last_queued <= now() - case when queued = 1 then interval '1 minute' else interval '1 hour' end);
end
$function$;

CREATE OR REPLACE FUNCTION private.count_signup_moved()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into private.waitlist_day_deltas (day, signups)
  values ((old.created_at at time zone 'UTC')::date, -1), ((new.created_at at time zone 'UTC')::date, 1);
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_signups_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into private.waitlist_day_deltas (day, signups)
  select (created_at at time zone 'UTC')::date, case tg_op when 'INSERT' then count(*) else -count(*) end
    from changed group by 1;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_signups_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from private.waitlist_day_deltas;
  delete from private.waitlist_day_counts;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_statuses_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.entry_status_deltas (status, entries)
    select status, count(*) from added group by 1;
  elsif tg_op = 'DELETE' then
    insert into private.entry_status_deltas (status, entries)
    select status, -count(*) from removed group by 1;
  else
    insert into private.entry_status_deltas (status, entries)
    select status, sum(n)
      from (select status, -1 as n from removed union all select status, 1 from added) as moved
     group by 1
    having sum(n) <> 0;
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_statuses_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from private.entry_status_deltas;
  delete from private.entry_status_counts;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_tags_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.entry_tag_deltas (tag, entries)
    select tag, count(*) from added, unnest(added.tags) as tag group by 1;
  elsif tg_op = 'DELETE' then
    insert into private.entry_tag_deltas (tag, entries)
    select tag, -count(*) from removed, unnest(removed.tags) as tag group by 1;
  else
    insert into private.entry_tag_deltas (tag, entries)
    select tag, sum(n)
      from (select tag, -1 as n from removed, unnest(removed.tags) as tag
            union all
            select tag, 1 from added, unnest(added.tags) as tag) as moved
     group by 1
    having sum(n) <> 0;
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.count_tags_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from private.entry_tag_deltas;
  delete from private.entry_tag_counts;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.forget_erased_email()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  new.erased_email := null;
  return new;
end
$function$;

CREATE OR REPLACE FUNCTION private.forget_test_address()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  new.test_address := null;
  return new;
end
$function$;

CREATE OR REPLACE FUNCTION private.hold_paused_network()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  until timestamptz;
begin
  select p.paused_until into until
    from public.waitlist w join private.network_pauses p on p.network = w.signup_network
   where w.id = new.waitlist_id and p.paused_until > new.run_at;
  if until is not null then
    new.run_at := until;
  end if;
  return new;
end
$function$;

CREATE OR REPLACE FUNCTION private.lane_window(p_lane smallint, p_since timestamp with time zone, p_size integer)
 RETURNS TABLE(status text, outcome text, waitlist_id bigint, sent_at timestamp with time zone)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
 SET enable_sort TO 'off'
AS $function$
  select o.status, o.outcome, o.waitlist_id, o.sent_at from private.mail_outbox o
   where o.priority = p_lane and o.sent_at is not null and o.sent_at >= p_since
   order by o.sent_at desc
   limit p_size
$function$;

CREATE OR REPLACE FUNCTION private.mailbox_key(address text)
 RETURNS bytea
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO ''
AS $function$
  select sha256(convert_to(
           case
             when domain in ('gmail.com', 'googlemail.com') then replace(local, '.', '') || '@gmail.com'
             when domain ~ '^(yahoo\.(com|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})|ymail\.com|rocketmail\.com)$'
                  and domain <> 'yahoo.co.jp'
               then coalesce(nullif(split_part(local, '-', 1), ''), local) || '@' || domain
             when parent = any (array[
               '123mail.org', '150mail.com', '150ml.com', '16mail.com', '2-mail.com', '4email.net',
               '50mail.com', 'airpost.net', 'allmail.net', 'bestmail.us', 'cluemail.com', 'elitemail.org',
               'emailcorner.net', 'emailengine.net', 'emailengine.org', 'emailgroups.net', 'emailplus.org',
               'emailuser.net', 'eml.cc', 'f-m.fm', 'fast-email.com', 'fast-mail.org', 'fastem.com',
               'fastemail.us', 'fastemailer.com', 'fastest.cc', 'fastimap.com', 'fastmail.cn',
               'fastmail.co.uk', 'fastmail.com', 'fastmail.com.au', 'fastmail.de', 'fastmail.es',
               'fastmail.fm', 'fastmail.fr', 'fastmail.im', 'fastmail.in', 'fastmail.jp', 'fastmail.mx',
               'fastmail.net', 'fastmail.nl', 'fastmail.org', 'fastmail.se', 'fastmail.to', 'fastmail.tw',
               'fastmail.uk', 'fastmail.us', 'fastmailbox.net', 'fastmessaging.com', 'fea.st',
               'fmail.co.uk', 'fmailbox.com', 'fmgirl.com', 'fmguy.com', 'ftml.net', 'h-mail.us',
               'hailmail.net', 'imap-mail.com', 'imap.cc', 'imapmail.org', 'inoutbox.com',
               'internet-e-mail.com', 'internet-mail.org', 'internetemails.net', 'internetmailing.net',
               'jetemail.net', 'justemail.net', 'letterboxes.org', 'mail-central.com', 'mail-page.com',
               'mailandftp.com', 'mailas.com', 'mailbolt.com', 'mailc.net', 'mailcan.com', 'mailforce.net',
               'mailftp.com', 'mailhaven.com', 'mailingaddress.org', 'mailite.com', 'mailmight.com',
               'mailnew.com', 'mailsent.net', 'mailservice.ms', 'mailup.net', 'mailworks.org',
               'messagingengine.com', 'ml1.net', 'mm.st', 'myfastmail.com', 'mymacmail.com',
               'nospammail.net', 'ownmail.net', 'petml.com', 'postinbox.com', 'postpro.net',
               'proinbox.com', 'promessage.com', 'realemail.net', 'reallyfast.biz', 'reallyfast.info',
               'rushpost.com', 'sent.as', 'sent.at', 'sent.com', 'speedpost.net', 'speedymail.org',
               'ssl-mail.com', 'swift-mail.com', 'the-fastest.net', 'the-quickest.com',
               'theinternetemail.com', 'veryfast.biz', 'veryspeedy.net', 'warpmail.net', 'xsmail.com',
               'yepmail.net', 'your-mail.com'])
               then split_part(domain, '.', 1) || '@' || parent
             else local || '@' || domain
           end, 'UTF8'))
    from (select local, domain, substr(domain, strpos(domain, '.') + 1) as parent
            from (select split_part(split_part(lowered, '@', 1), '+', 1) as local,
                         split_part(lowered, '@', 2) as domain
                    from (select lower(address) as lowered) as a) as parts) as named
$function$;

CREATE OR REPLACE FUNCTION private.may_mail(p_kind text, p_status text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select case
    when p_status in ('bounced', 'unsubscribed', 'complained') then false
    when p_kind = 'test' then true
    when p_kind = 'confirmation' then p_status is not distinct from 'unconfirmed'
    when p_kind = 'invitation' then p_status is not distinct from 'invited'
    else false
  end
$function$;

CREATE OR REPLACE FUNCTION private.on_waitlist_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  notify boolean;
  confirm boolean;
  erased boolean;
begin
  if coalesce(current_setting('waitlist.importing', true), '') = 'on' then
    return null;
  end if;
  select coalesce((select enabled from private.webhook_settings), false),
         coalesce((select confirm_signups from private.mail_settings), false),
         exists (select from private.suppressed)
    into notify, confirm, erased;
  if notify then
    insert into private.webhook_deliveries (waitlist_id) values (new.id);
    perform pg_notify('webhook_deliveries', '');
  end if;
  if erased and not confirm then
    confirm := exists (select from private.suppressed where hash = private.suppression_hash(new.email::text));
  end if;
  if confirm then
    perform private.queue_confirmation(new.id, private.mailbox_key(new.email::text), true);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION private.queue_confirmation(p_waitlist_id bigint, p_box bytea, p_limited boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  due boolean := not p_limited or private.confirmation_due(p_box);
begin
  insert into private.entry_status as s (waitlist_id, status, mailbox, confirmations, confirm_sent_at)
    values (p_waitlist_id, 'unconfirmed', p_box, case when due then 1 else 0 end, case when due then now() end)
  on conflict (waitlist_id) do update
    set confirm_sent_at = now(), confirmations = s.confirmations + 1, mailbox = excluded.mailbox, updated_at = now()
    where s.status = 'unconfirmed' and due;
  if not found or not due then
    return false;
  end if;
  insert into private.mail_outbox (waitlist_id, kind, priority, message_domain)
    select p_waitlist_id, 'confirmation', 0, message_domain from private.mail_settings;
  perform pg_notify('mail_outbox', '');
  return true;
end
$function$;

CREATE OR REPLACE FUNCTION private.rate_left(available double precision, p_first integer, p_extra integer)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case
    when available < p_first then available
    when available - p_first < p_extra then available - p_first
    else available - p_first - p_extra
  end
$function$;

CREATE OR REPLACE FUNCTION private.rate_refill(tokens double precision, since timestamp with time zone, now_at timestamp with time zone, p_per_minute double precision, p_burst double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select least(p_burst, tokens + greatest(0, extract(epoch from now_at - since)) * p_per_minute / 60)
$function$;

CREATE OR REPLACE FUNCTION private.rate_short(available double precision, p_first integer, p_extra integer)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case
    when available < p_first then p_first - available
    when available - p_first < p_extra then p_extra - (available - p_first)
    else 0
  end
$function$;

CREATE OR REPLACE FUNCTION private.recipient_status(p_waitlist_id bigint, p_address text)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select coalesce(s.status, 'waiting')
    from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
   where w.id = p_waitlist_id
  union all
  select coalesce(s.status, 'waiting')
    from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
   where p_waitlist_id is null and w.email operator(extensions.=) p_address::extensions.citext
  limit 1
$function$;

CREATE OR REPLACE FUNCTION private.refuse_rate_limited()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  retry integer := coalesce(nullif(current_setting('lab.rate_limit_retry', true), ''), '0')::integer;
begin
  if retry > 0 then
    raise exception using
      errcode = 'PT429',
      message = 'Too many requests from this address',
      detail = retry::text,
      hint = format('Try again in %s seconds', retry);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION private.suppression_hash(address text)
 RETURNS bytea
 LANGUAGE sql
 STABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select sha256(k.outer_pad || sha256(k.inner_pad || private.mailbox_key(address)))
    from private.suppression_key k
$function$;

CREATE OR REPLACE FUNCTION private.visitors_seen(bits bit varying)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select case
    when bits is null then 0
    when bit_count(bits) >= length(bits) then round(length(bits) * ln(length(bits)))::bigint
    else round(-length(bits) * ln(1 - bit_count(bits)::float8 / length(bits)))::bigint
  end
$function$;

-- Triggers

CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON private.audit_log FOR EACH ROW EXECUTE FUNCTION private.audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON private.audit_log FOR EACH STATEMENT EXECUTE FUNCTION private.audit_log_append_only();
CREATE TRIGGER audit_repeats_no_truncate BEFORE TRUNCATE ON private.audit_repeats FOR EACH STATEMENT EXECUTE FUNCTION private.audit_log_append_only();
CREATE TRIGGER audit_repeats_only_rise BEFORE DELETE OR UPDATE ON private.audit_repeats FOR EACH ROW EXECUTE FUNCTION private.audit_repeats_only_rise();
CREATE TRIGGER entry_marks_count_added AFTER INSERT ON private.entry_marks REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION private.count_tags_changed();
CREATE TRIGGER entry_marks_count_moved AFTER UPDATE ON private.entry_marks REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION private.count_tags_changed();
CREATE TRIGGER entry_marks_count_removed AFTER DELETE ON private.entry_marks REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION private.count_tags_changed();
CREATE TRIGGER entry_marks_count_truncated AFTER TRUNCATE ON private.entry_marks FOR EACH STATEMENT EXECUTE FUNCTION private.count_tags_truncated();
CREATE TRIGGER entry_status_count_added AFTER INSERT ON private.entry_status REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION private.count_statuses_changed();
CREATE TRIGGER entry_status_count_moved AFTER UPDATE ON private.entry_status REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION private.count_statuses_changed();
CREATE TRIGGER entry_status_count_removed AFTER DELETE ON private.entry_status REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION private.count_statuses_changed();
CREATE TRIGGER entry_status_count_truncated AFTER TRUNCATE ON private.entry_status FOR EACH STATEMENT EXECUTE FUNCTION private.count_statuses_truncated();
CREATE TRIGGER mail_outbox_forget_test_address BEFORE UPDATE OF status ON private.mail_outbox FOR EACH ROW WHEN (((new.status <> 'pending'::text) AND (new.test_address IS NOT NULL))) EXECUTE FUNCTION private.forget_test_address();
CREATE TRIGGER mail_outbox_hold_paused_network BEFORE INSERT OR UPDATE OF run_at ON private.mail_outbox FOR EACH ROW WHEN (((new.kind = 'confirmation'::text) AND (new.status = 'pending'::text))) EXECUTE FUNCTION private.hold_paused_network();
CREATE TRIGGER webhook_deliveries_forget_erased_email BEFORE UPDATE OF status ON private.webhook_deliveries FOR EACH ROW WHEN (((new.status = ANY (ARRAY['delivered'::text, 'failed'::text])) AND (new.erased_email IS NOT NULL))) EXECUTE FUNCTION private.forget_erased_email();
CREATE TRIGGER waitlist_count_added AFTER INSERT ON public.waitlist REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION private.count_signups_changed();
CREATE TRIGGER waitlist_count_moved AFTER UPDATE OF created_at ON public.waitlist FOR EACH ROW WHEN ((((old.created_at AT TIME ZONE 'UTC'::text))::date IS DISTINCT FROM ((new.created_at AT TIME ZONE 'UTC'::text))::date)) EXECUTE FUNCTION private.count_signup_moved();
CREATE TRIGGER waitlist_count_removed AFTER DELETE ON public.waitlist REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION private.count_signups_changed();
CREATE TRIGGER waitlist_count_truncated AFTER TRUNCATE ON public.waitlist FOR EACH STATEMENT EXECUTE FUNCTION private.count_signups_truncated();
CREATE TRIGGER waitlist_on_insert AFTER INSERT ON public.waitlist FOR EACH ROW EXECUTE FUNCTION private.on_waitlist_insert();

-- Row-level security

ALTER TABLE private.agent_nonces ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.audit_entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.audit_repeats ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.consent_words ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_answers ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_details ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_marks ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_names ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_status ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_status_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_status_deltas ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_tag_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.entry_tag_deltas ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.invite_batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.jwt_secret ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_event_ids ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_event_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_health ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_pace ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.mail_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.network_pauses ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.preflight_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.proposed_answers ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.rate_limit_buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.source_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.suppressed ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.suppression_key ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.team_challenges ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.team_enrolments ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.team_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.team_passkeys ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.team_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.visitor_salts ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.waitlist_day_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.waitlist_day_deltas ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.webhook_deliveries ENABLE ROW LEVEL SECURITY;
ALTER TABLE private.webhook_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.waitlist ENABLE ROW LEVEL SECURITY;

-- Policies

CREATE POLICY "Anyone can join the waitlist" ON public.waitlist
    AS PERMISSIVE FOR INSERT
    TO anon, authenticated
    WITH CHECK (true);

CREATE POLICY "service_role has full access" ON public.waitlist
    AS PERMISSIVE FOR ALL
    TO service_role
    USING (true)
    WITH CHECK (true);

-- Grants (all the others are the owner's alone)

GRANT USAGE ON SCHEMA extensions TO anon;
GRANT USAGE ON SCHEMA extensions TO authenticated;
GRANT USAGE ON SCHEMA extensions TO service_role;
GRANT USAGE ON SCHEMA public TO PUBLIC;
GRANT USAGE ON SCHEMA public TO anon;
GRANT USAGE ON SCHEMA public TO authenticated;
GRANT USAGE ON SCHEMA public TO service_role;
GRANT INSERT (email) ON TABLE public.waitlist TO anon;
GRANT INSERT (email) ON TABLE public.waitlist TO authenticated;
GRANT ALL ON TABLE public.waitlist TO service_role;
