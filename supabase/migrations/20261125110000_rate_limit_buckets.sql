-- One rate limit per client address across every server on one database: token buckets the
-- servers charge inside each write's own transaction (server/http/middleware/postgres-rate-limiter.ts).
-- UNLOGGED: no WAL, so a charge adds no disk flush; PostgreSQL empties the table after a crash,
-- and every address then starts with a full bucket, as after a restart of a single server.
create unlogged table if not exists private.rate_limit_buckets (
  key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null,
  -- How many tokens the last charge lacked: 0 when it was allowed.
  short double precision not null default 0
);

alter table private.rate_limit_buckets enable row level security;
-- No policies and no grants: only the owner (the server) reads or writes it.
revoke all on table private.rate_limit_buckets from public, anon, authenticated;

-- The bucket's tokens at `now_at`: refilled at p_per_minute a minute since `since`, up to p_burst.
create or replace function private.rate_refill(
  tokens double precision,
  since timestamptz,
  now_at timestamptz,
  p_per_minute double precision,
  p_burst double precision
)
returns double precision
language sql
immutable
as $$
  select least(p_burst, tokens + greatest(0, extract(epoch from now_at - since)) * p_per_minute / 60)
$$;

-- Of `available` tokens, p_first are taken and then, only if those were there, p_extra more, all or
-- none: what is left, and what was lacking (0 when all were taken).
create or replace function private.rate_left(available double precision, p_first integer, p_extra integer)
returns double precision
language sql
immutable
as $$
  select case
    when available < p_first then available
    when available - p_first < p_extra then available - p_first
    else available - p_first - p_extra
  end
$$;

create or replace function private.rate_short(available double precision, p_first integer, p_extra integer)
returns double precision
language sql
immutable
as $$
  select case
    when available < p_first then p_first - available
    when available - p_first < p_extra then p_extra - (available - p_first)
    else 0
  end
$$;

-- Charges an address's bucket: the request's p_first tokens, then an array insert's rows past the
-- first (p_extra), as above (ADR 017). One statement: a new address starts from a full bucket, and the
-- row lock of the upsert orders the charges of one address. Returns 0 when all were taken, else the
-- seconds until they would be, and leaves the same answer in lab.rate_limit_retry for
-- refuse_rate_limited() in this transaction. The database's clock, so servers whose clocks differ
-- still share one limit.
create or replace function private.charge_rate_limit(
  p_key text,
  p_first integer,
  p_extra integer,
  p_per_minute double precision,
  p_burst double precision
)
returns integer
-- PL/pgSQL plans the upsert once per session and keeps the plan.
language plpgsql
as $$
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
$$;

-- Refuses the rest of a write whose charge was refused: PT429 (PostgREST's way of naming the
-- HTTP status), the seconds to wait as its detail.
create or replace function private.refuse_rate_limited()
returns void
language plpgsql
as $$
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
$$;

revoke all on function private.charge_rate_limit(text, integer, integer, double precision, double precision)
  from public, anon, authenticated;
revoke all on function private.refuse_rate_limited() from public, anon, authenticated;
revoke all on function private.rate_refill(double precision, timestamptz, timestamptz, double precision, double precision)
  from public, anon, authenticated;
revoke all on function private.rate_left(double precision, integer, integer) from public, anon, authenticated;
revoke all on function private.rate_short(double precision, integer, integer) from public, anon, authenticated;
