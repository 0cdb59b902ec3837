-- The lab's team in the studio (issue 54): members with a role, their passkeys (WebAuthn; the
-- library checks each ceremony, these tables keep what it hands back), one-use enrolment links,
-- single-use challenges, sessions, and a record of who did what. Plain Postgres in the owner-only
-- `private` schema, as the invitations' migrations: applies unchanged on hosted Supabase and with
-- an owner that is not a superuser. anon's contract does not change.

-- A member of the lab's team: an address (staff, not a waitlist entry) and a role. viewer sees;
-- member also chooses and invites; owner also runs the team, exports and removes entries.
-- `user_handle` is the WebAuthn user.id the passkeys carry: random, never the address.
create table if not exists private.team_members (
  id bigint generated always as identity primary key,
  email extensions.citext not null unique check (char_length(email) between 3 and 254),
  role text not null check (role in ('viewer', 'member', 'owner')),
  user_handle bytea not null unique check (octet_length(user_handle) = 32),
  created_at timestamptz not null default now()
);

-- A member's passkeys: what @simplewebauthn/server verified at registration. `id` is the
-- credential's id (base64url), `counter` its signature counter, `name` the member's own label.
create table if not exists private.team_passkeys (
  id text primary key check (char_length(id) between 16 and 1400),
  member_id bigint not null references private.team_members (id) on delete cascade,
  public_key bytea not null check (octet_length(public_key) <= 2048),
  counter bigint not null default 0 check (counter >= 0),
  transports text[] not null default '{}' check (cardinality(transports) <= 10),
  device_type text not null check (device_type in ('singleDevice', 'multiDevice')),
  backed_up boolean not null,
  name text not null check (char_length(name) between 1 and 60),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index if not exists team_passkeys_member on private.team_passkeys (member_id);

-- An enrolment link (`team add`, `team link`): its token's SHA-256, never the token; one use,
-- 24 hours. A new link for a member replaces the one before.
create table if not exists private.team_enrolments (
  token_hash bytea primary key check (octet_length(token_hash) = 32),
  member_id bigint not null unique references private.team_members (id) on delete cascade,
  expires_at timestamptz not null
);

-- A WebAuthn challenge the server handed out: single use (taken by `delete … returning`) and
-- short-lived. An enrolment's or a new passkey's names its member; a sign-in's names nobody
-- (discoverable credentials: the passkey says whose it is).
create table if not exists private.team_challenges (
  challenge text primary key check (char_length(challenge) between 16 and 128),
  purpose text not null check (purpose in ('register', 'sign-in')),
  member_id bigint references private.team_members (id) on delete cascade,
  expires_at timestamptz not null
);
create index if not exists team_challenges_expiry on private.team_challenges (expires_at);

-- A signed-in browser: the cookie's token's SHA-256. It ends after 12 hours without a request, 7
-- days after the sign-in at most, at sign-out, and with its member (`team remove`: at once).
create table if not exists private.team_sessions (
  token_hash bytea primary key check (octet_length(token_hash) = 32),
  member_id bigint not null references private.team_members (id) on delete cascade,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index if not exists team_sessions_member on private.team_sessions (member_id);

-- Who did what: every change made in the team studio, the local studio or the CLI, every sign-in
-- and failed sign-in. Written in the transaction of the change it records. `actor` is a member's
-- address or `cli:` and the OS user; `network` the client's address as the logs show it (an IPv4
-- /24, an IPv6 /48); `detail` never holds an entry's address.
create table if not exists private.audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null default now(),
  actor text not null check (char_length(actor) between 1 and 300),
  action text not null check (char_length(action) between 1 and 40),
  detail text check (char_length(detail) <= 500),
  count integer not null default 0 check (count >= 0),
  network cidr
);
create index if not exists audit_log_at on private.audit_log (at, id);

-- The entries a line is about, for an entry's history ("invited by …"). Removing an entry removes
-- these links, so its lines stay in the record without its address.
create table if not exists private.audit_entries (
  waitlist_id bigint not null references public.waitlist (id) on delete cascade,
  audit_id bigint not null references private.audit_log (id),
  primary key (waitlist_id, audit_id)
);
create index if not exists audit_entries_line on private.audit_entries (audit_id);

-- The record is only ever added to: no route changes it, and neither can a statement.
create or replace function private.audit_log_append_only()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception 'the audit record is only ever added to' using errcode = '42501';
end
$$;
drop trigger if exists audit_log_append_only on private.audit_log;
create trigger audit_log_append_only before update or delete on private.audit_log
  for each row execute function private.audit_log_append_only();
revoke all on function private.audit_log_append_only() from public, anon, authenticated;

alter table private.team_members enable row level security;
alter table private.team_passkeys enable row level security;
alter table private.team_enrolments enable row level security;
alter table private.team_challenges enable row level security;
alter table private.team_sessions enable row level security;
alter table private.audit_log enable row level security;
alter table private.audit_entries enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes them.
revoke all on table private.team_members from public, anon, authenticated;
revoke all on table private.team_passkeys from public, anon, authenticated;
revoke all on table private.team_enrolments from public, anon, authenticated;
revoke all on table private.team_challenges from public, anon, authenticated;
revoke all on table private.team_sessions from public, anon, authenticated;
revoke all on table private.audit_log from public, anon, authenticated;
revoke all on table private.audit_entries from public, anon, authenticated;
