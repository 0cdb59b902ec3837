-- Visits, visitors and signups per day and source, counted by the server itself with no cookie, no
-- script and nothing stored about anyone (docs/analytics.md, ADR 040). No raw event table: only
-- daily counters, written every few seconds by each server, adding, so several servers sum.
-- Plain Postgres that applies unchanged on hosted Supabase and with an owner that is not a superuser.

create schema if not exists private;
revoke all on schema private from public, anon, authenticated;

create table if not exists private.source_counts (
  day date not null,
  -- utm_source (lowercased), else the referring site's host, else 'direct'; 'mcp' for agents;
  -- '(other)' once the day holds as many distinct sources, media and campaigns as a server keeps.
  source text not null check (char_length(source) between 1 and 100),
  medium text not null default '' check (char_length(medium) <= 100),
  campaign text not null default '' check (char_length(campaign) <= 100),
  visits bigint not null default 0 check (visits >= 0),
  signups bigint not null default 0 check (signups >= 0),
  -- While the day lasts: one bit per visitor, at a place chosen by a keyed hash of their address and
  -- browser with the day's salt (private.visitor_salts), so every server marks the same visitor
  -- in the same place and one visitor is counted once. Once the day is over the bits become the
  -- number below and are erased; with the salt deleted, no one could have tied a bit to a person.
  visitor_bits bit(65536),
  visitors bigint check (visitors >= 0),
  primary key (day, source, medium, campaign)
);

-- One random salt per UTC day, shared by the servers on this database, deleted when the day is over.
create table if not exists private.visitor_salts (
  day date primary key,
  salt bytea not null check (octet_length(salt) = 32)
);

alter table private.source_counts enable row level security;
alter table private.visitor_salts enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes them.
revoke all on table private.source_counts from public, anon, authenticated;
revoke all on table private.visitor_salts from public, anon, authenticated;

-- How many visitors a day's bits stand for (linear counting: exact while few bits are set, within
-- about 1% up to a hundred thousand visitors a day per row; it saturates near 727,000).
create or replace function private.visitors_seen(bits bit varying)
returns bigint
language sql
immutable
parallel safe
set search_path = ''
as $$
  select case
    when bits is null then 0
    when bit_count(bits) >= length(bits) then round(length(bits) * ln(length(bits)))::bigint
    else round(-length(bits) * ln(1 - bit_count(bits)::float8 / length(bits)))::bigint
  end
$$;

revoke all on function private.visitors_seen(bit varying) from public, anon, authenticated;
