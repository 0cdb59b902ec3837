-- One rate limit per client address across every server on one database: token buckets the
-- servers charge inside each write's own transaction (server/http/middleware/postgres-rate-limiter.ts).
-- UNLOGGED: no WAL, so a charge adds no disk flush; PostgreSQL empties the table after a crash,
-- and every address then starts with a full bucket, as after a restart of a single server.
create unlogged table if not exists private.rate_limit_buckets (
  key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null
);

alter table private.rate_limit_buckets enable row level security;
-- No policies and no grants: only the owner (the server) reads or writes it.
revoke all on table private.rate_limit_buckets from public, anon, authenticated;

-- Takes p_first tokens from the address's bucket (refilled at p_per_minute a minute, up to
-- p_burst) and then, only if those were there, p_extra more, all or none: an array insert's rows
-- past the first (ADR 017). Returns 0 when all were taken, else the seconds until they would be,
-- and leaves the same answer in lab.rate_limit_retry for refuse_rate_limited() in this transaction.
-- The database's clock, so servers whose clocks differ still share one limit.
create or replace function private.charge_rate_limit(
  p_key text,
  p_first integer,
  p_extra integer,
  p_per_minute double precision,
  p_burst double precision
)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  now_at timestamptz := clock_timestamp();
  per_second double precision := p_per_minute / 60;
  available double precision;
  since timestamptz;
  short double precision := 0;
  retry integer := 0;
begin
  -- A new address gets a full bucket; the row lock then orders the charges of one address.
  insert into private.rate_limit_buckets (key, tokens, updated_at)
    values (p_key, p_burst, now_at)
    on conflict (key) do nothing;
  select tokens, updated_at into available, since
    from private.rate_limit_buckets where key = p_key for update;
  available := least(p_burst, available + greatest(0, extract(epoch from now_at - since)) * per_second);
  if available < p_first then
    short := p_first - available;
  else
    available := available - p_first;
    if available < p_extra then
      short := p_extra - available;
    else
      available := available - p_extra;
    end if;
  end if;
  update private.rate_limit_buckets set tokens = available, updated_at = now_at where key = p_key;
  if short > 0 then
    retry := greatest(1, ceil(short / per_second))::integer;
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
set search_path = ''
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
