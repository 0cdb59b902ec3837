-- Which agent acted, verified (issue 67): a Web Bot Auth signature (RFC 9421) checked on every way
-- in, its outcome kept with the entry's consent record. Plain Postgres in the owner-only `private`
-- schema: applies unchanged on hosted Supabase and with an owner that is not a superuser. anon's
-- contract does not change: the server writes the record through request.agent, as before.

-- The consent record's agent grows from {name, version} (as the client declared them) to the
-- outcome of the signature check beside them (server/agents/agent-record.ts):
--   name, version          the client's own declaration (MCP clientInfo), never the User-Agent;
--   verified               true only for a signature that held from an agent SIGNATURE_AGENTS lists;
--   signature_agent        the listed agent's origin, or an unlisted Signature-Agent kept as text;
--   signature_agent_name   the listed agent's display name;
--   key_id                 the JWK thumbprint the signature named;
--   checked_at             when this server checked it (ISO 8601, UTC);
--   failure                why a signature present did not hold.
-- A name is no longer required: a signed program may declare none. Existing records stay as they
-- are (declared); the default (request.agent) is unchanged, so an unsigned insert pays nothing new.
alter table public.waitlist drop constraint if exists waitlist_consent_agent;
alter table public.waitlist
  add constraint waitlist_consent_agent check (
    jsonb_typeof(consent_agent) = 'object'
    and consent_agent - 'name' - 'version' - 'verified' - 'signature_agent' - 'signature_agent_name'
      - 'key_id' - 'checked_at' - 'failure' = '{}'::jsonb
    and coalesce(jsonb_typeof(consent_agent -> 'name'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'name'), 1) between 1 and 100
    and coalesce(jsonb_typeof(consent_agent -> 'version'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'version'), 1) between 1 and 40
    and coalesce(jsonb_typeof(consent_agent -> 'verified'), 'boolean') = 'boolean'
    and coalesce(jsonb_typeof(consent_agent -> 'signature_agent'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'signature_agent'), 1) between 1 and 200
    and coalesce(jsonb_typeof(consent_agent -> 'signature_agent_name'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'signature_agent_name'), 1) between 1 and 100
    and coalesce(jsonb_typeof(consent_agent -> 'key_id'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'key_id'), 1) between 1 and 100
    and coalesce(jsonb_typeof(consent_agent -> 'checked_at'), 'string') = 'string'
    and coalesce(char_length(consent_agent ->> 'checked_at'), 1) between 1 and 40
    and coalesce(consent_agent ->> 'failure', 'expired') in
      ('expired', 'unknown key', 'bad signature', 'replayed nonce', 'unlisted agent', 'directory unreachable')
    -- verified holds only with the agent and key it was verified by, and no failure.
    and (coalesce((consent_agent ->> 'verified')::boolean, false) = false
      or (consent_agent ? 'signature_agent' and consent_agent ? 'key_id' and not consent_agent ? 'failure')));

-- A signature's nonce, accepted once within its window by every server sharing the database: its
-- SHA-256 (never the nonce itself), kept until the signature expires. Only signed requests write
-- here; each claim also sweeps a few expired rows, so the table holds about one window's worth.
create table if not exists private.agent_nonces (
  hash bytea primary key check (octet_length(hash) = 32),
  expires_at timestamptz not null
);
create index if not exists agent_nonces_expires_at on private.agent_nonces (expires_at);
alter table private.agent_nonces enable row level security;
revoke all on table private.agent_nonces from public, anon, authenticated;
