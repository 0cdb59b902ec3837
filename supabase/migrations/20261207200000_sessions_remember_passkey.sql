-- A session remembers the passkey that made it (issue 61, a lost device): removing the passkey
-- ends its sessions (the foreign key's cascade, so no path can forget), `team link` ends a
-- member's sessions, and a member sees their own sessions and ends any of them. Plain Postgres in
-- the owner-only `private` schema: applies unchanged on hosted Supabase.
--
-- Sessions from before this migration do not know their passkey: kept, they would outlive its
-- removal. They end here, once; the team signs in again with the same passkeys.
delete from private.team_sessions;

-- `id` names a session to its member (the page's "End"), never its token or the token's hash.
-- `device` is a few words read from the sign-in's User-Agent ("Chrome on Linux"), never the
-- header itself; `network` the client's network as the logs show it (an IPv4 /24, an IPv6 /48),
-- kept fresh with the idle clock (at most once a minute).
alter table private.team_sessions
  add column if not exists id bigint generated always as identity unique,
  add column if not exists passkey_id text not null
    references private.team_passkeys (id) on delete cascade,
  add column if not exists device text not null default '' check (char_length(device) <= 60),
  add column if not exists network cidr;
create index if not exists team_sessions_passkey on private.team_sessions (passkey_id);
