-- Proof of consent, the person's own erasure, and erased stays erased (issue 53). Plain Postgres
-- in the owner-only `private` schema (sha256() is core, no extension): applies unchanged on hosted
-- Supabase and with an owner that is not a superuser. anon's contract does not change: it may
-- insert an e-mail and nothing else; it can neither set nor read any of this.

-- The words a door showed the person, each version once: the text, its SHA-256, and the version
-- an entry points to (the hash's first 16 hex digits). Servers register the words of their doors
-- at start-up (server/waitlist/consent/door-words.ts); `import` registers a line naming its file.
-- Not personal data: kept for as long as the lab keeps any record that points to it.
create table if not exists private.consent_words (
  version text primary key check (version ~ '^[0-9a-f]{16}$'),
  hash bytea not null unique check (octet_length(hash) = 32),
  text text not null check (char_length(text) between 1 and 4000),
  registered_at timestamptz not null default now(),
  check (version = encode(substr(hash, 1, 8), 'hex'))
);
alter table private.consent_words enable row level security;
revoke all on table private.consent_words from public, anon, authenticated;

-- One consent record per entry, written in the signup's own transaction by the trigger below from
-- what the server set beside the key's role (request.door, request.words, request.agent_*), so no
-- client writes it; `import` writes its own. Its network is the entry's signup_network, shown cut
-- as the logs cut it (never stored twice); the confirmation's time is entry_status.confirmed_at,
-- its network `confirmed_from`, cut as the logs cut it (IPv4 /24, IPv6 /48). `words` names a
-- version of private.consent_words, without a foreign key: the insert path takes no lock on a row
-- every signup shares, and an import may name a version another installation registered. An
-- agent's name and version are as its MCP client declared them, never verified.
create table if not exists private.entry_consent (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  at timestamptz not null default now(),
  door text not null check (door in ('page', 'form', 'api', 'mcp', 'webmcp', 'import')),
  words text check (words ~ '^[0-9a-f]{16}$'),
  agent_name text check (char_length(agent_name) between 1 and 100),
  agent_version text check (char_length(agent_version) between 1 and 40),
  confirmed_from cidr
    check (confirmed_from is null or masklen(confirmed_from) = case family(confirmed_from) when 4 then 24 else 48 end),
  check (agent_version is null or agent_name is not null)
);
alter table private.entry_consent enable row level security;
revoke all on table private.entry_consent from public, anon, authenticated;

-- Erased stays erased: a keyed hash of each erased or removed address's mailbox (the mailbox key
-- the confirmations use, private.mailbox_key), which `import` skips. A signup of the address is
-- the person's new consent: the trigger below drops the hash.
create table if not exists private.suppressed (
  hash bytea primary key check (octet_length(hash) = 32),
  at timestamptz not null default now(),
  why text not null check (why in ('removed', 'erased'))
);
alter table private.suppressed enable row level security;
revoke all on table private.suppressed from public, anon, authenticated;

-- The hash's key: HMAC-SHA-256 with a key derived from the JWT secret, as its two pads (the key
-- xor 0x36, xor 0x5c; RFC 2104), written by every server and by the CLI at start-up
-- (server/waitlist/consent/suppression.ts). Kept as pads so HMAC is two core sha256() calls.
create table if not exists private.suppression_key (
  singleton boolean primary key default true check (singleton),
  inner_pad bytea not null check (octet_length(inner_pad) = 64),
  outer_pad bytea not null check (octet_length(outer_pad) = 64),
  updated_at timestamptz not null default now()
);
alter table private.suppression_key enable row level security;
revoke all on table private.suppression_key from public, anon, authenticated;

-- HMAC-SHA-256(key, mailbox key of the address); null while no key is written.
create or replace function private.suppression_hash(address text)
returns bytea
language sql
stable
parallel safe
set search_path = ''
as $$
  select sha256(k.outer_pad || sha256(k.inner_pad || private.mailbox_key(address)))
    from private.suppression_key k
$$;
revoke all on function private.suppression_hash(text) from public, anon, authenticated;

-- The consent record of each new entry, from the server's request settings (absent: a program
-- writing SQL, or hosted Supabase's own REST: the door is `api`). An import records its own
-- (waitlist.importing). A new signup of a suppressed address drops its hash: a look at an empty
-- table is all an insert pays while nobody was erased. One statement per insert statement, as the
-- day counts' trigger, whose new-rows table PostgreSQL builds once for both.
create or replace function private.record_consent()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if coalesce(current_setting('waitlist.importing', true), '') = 'on' then
    return null;
  end if;
  insert into private.entry_consent (waitlist_id, door, words, agent_name, agent_version)
  select a.id,
         coalesce(nullif(current_setting('request.door', true), ''), 'api'),
         nullif(current_setting('request.words', true), ''),
         nullif(current_setting('request.agent_name', true), ''),
         nullif(current_setting('request.agent_version', true), '')
    from added a;
  if exists (select from private.suppressed) then
    delete from private.suppressed
     where hash in (select private.suppression_hash(a.email::text) from added a);
  end if;
  return null;
end
$$;
revoke all on function private.record_consent() from public, anon, authenticated;

drop trigger if exists waitlist_consent on public.waitlist;
create trigger waitlist_consent
  after insert on public.waitlist
  referencing new table as added
  for each statement execute function private.record_consent();

-- The webhook hears of an erasure (Art. 19): the entry is gone, so the delivery carries the
-- address itself, and forgets it once delivered. The event list is read from the check as it
-- stands, so a migration that added another event before this one keeps it.
do $$
declare
  allowed text[];
begin
  select array(select (regexp_matches(pg_get_constraintdef(c.oid), '''([^'']+)''', 'g'))[1])
    into allowed
    from pg_constraint c
   where c.conrelid = 'private.webhook_deliveries'::regclass and c.conname = 'webhook_deliveries_event_check';
  if not 'entry.erased' = any(allowed) then
    alter table private.webhook_deliveries drop constraint webhook_deliveries_event_check;
    execute format(
      'alter table private.webhook_deliveries add constraint webhook_deliveries_event_check check (event in (%s))',
      (select string_agg(quote_literal(event), ', ') from unnest(allowed || array['entry.erased']) as event));
  end if;
end
$$;

alter table private.webhook_deliveries add column if not exists erased_email text;
alter table private.webhook_deliveries drop constraint if exists webhook_deliveries_erased_email_check;
alter table private.webhook_deliveries add constraint webhook_deliveries_erased_email_check
  check (erased_email is null or (event = 'entry.erased' and char_length(erased_email) <= 254));

create or replace function private.forget_erased_email()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.erased_email := null;
  return new;
end
$$;
revoke all on function private.forget_erased_email() from public, anon, authenticated;

drop trigger if exists webhook_deliveries_forget_erased_email on private.webhook_deliveries;
create trigger webhook_deliveries_forget_erased_email
  before update of status on private.webhook_deliveries
  for each row when (new.status = 'delivered' and new.erased_email is not null)
  execute function private.forget_erased_email();
