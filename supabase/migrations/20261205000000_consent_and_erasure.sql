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

-- One consent record per entry, on the entry's own row, written by the insert itself: each column
-- defaults to what the server set beside the key's role for the signup's transaction
-- (request.door, request.words, request.agent), so no client writes it (anon may insert the e-mail
-- alone), and an insert pays no trigger and no second row for it. Absent settings (a program's SQL,
-- hosted Supabase's own REST) make the door `api`. `import` writes its own. Entries from before
-- keep none: each column is added empty, then given its default.
--   consent_at       when it was given (the signup's, or the import's time);
--   consent_door     page, form (no script), api, mcp, webmcp, import;
--   consent_words    the version of private.consent_words the door showed: no foreign key, so the
--                    insert locks no row every signup shares, and an import may name a version
--                    another installation stored;
--   consent_agent    the MCP client's {"name", "version"} as it declared them, never verified;
--   confirmed_from   the network the confirmation came from, cut as the logs cut it (IPv4 /24,
--                    IPv6 /48); its time is entry_status.confirmed_at.
-- The signup's own network is signup_network, shown cut as the logs cut it: never stored twice.
alter table public.waitlist
  add column if not exists consent_at timestamptz,
  add column if not exists consent_door text
    constraint waitlist_consent_door check (consent_door in ('page', 'form', 'api', 'mcp', 'webmcp', 'import')),
  add column if not exists consent_words text
    constraint waitlist_consent_words check (consent_words ~ '^[0-9a-f]{16}$'),
  add column if not exists consent_agent jsonb
    constraint waitlist_consent_agent check (
      jsonb_typeof(consent_agent) = 'object'
      and consent_agent - 'name' - 'version' = '{}'::jsonb
      and jsonb_typeof(consent_agent -> 'name') = 'string'
      and char_length(consent_agent ->> 'name') between 1 and 100
      and coalesce(jsonb_typeof(consent_agent -> 'version'), 'string') = 'string'
      and coalesce(char_length(consent_agent ->> 'version'), 1) between 1 and 40),
  add column if not exists confirmed_from cidr
    constraint waitlist_confirmed_from_cut
      check (confirmed_from is null or masklen(confirmed_from) = case family(confirmed_from) when 4 then 24 else 48 end);
alter table public.waitlist
  alter column consent_at set default now(),
  alter column consent_door set default coalesce(nullif(current_setting('request.door', true), ''), 'api'),
  alter column consent_words set default nullif(current_setting('request.words', true), ''),
  alter column consent_agent set default nullif(current_setting('request.agent', true), '')::jsonb;

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

-- The signup trigger, as 20261202000000 left it, and one thing more: a new signup of an address
-- `remove` or its person erased is the person's new consent, so its hash goes. Read with the
-- settings in the one query it already made: while nobody was erased, a look at an empty table.
create or replace function private.on_waitlist_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
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
  if confirm then
    perform private.queue_confirmation(new.id, private.mailbox_key(new.email::text), true);
  end if;
  if erased then
    delete from private.suppressed where hash = private.suppression_hash(new.email::text);
  end if;
  return null;
end
$$;
revoke all on function private.on_waitlist_insert() from public, anon, authenticated;

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
