-- Signup notifications: an outbox written in the signup's own transaction, so a crash between the
-- commit and the webhook loses nothing (server/waitlist/notifications/ sends it, at least once).
-- Plain Postgres that applies unchanged on hosted Supabase. There no deliverer runs, so the trigger
-- enqueues only while a server with SIGNUP_WEBHOOK_URL has switched notifications on (see
-- private.signup_notify_settings); Supabase's own Database Webhooks take this part's place.

-- A schema anon and authenticated cannot even name: neither PostgREST nor a role switch reaches it.
create schema if not exists private;
revoke all on schema private from public, anon, authenticated;

-- One row, switched by the server at start-up: on when SIGNUP_WEBHOOK_URL is set, off when not.
create table if not exists private.signup_notify_settings (
  singleton boolean primary key default true check (singleton),
  enabled boolean not null default false,
  updated_at timestamptz not null default now()
);

create table if not exists private.signup_deliveries (
  -- One delivery per signup, keyed by its row: sent as the Standard Webhooks `webhook-id`
  -- (msg_<id>), the same on every retry, so a receiver can drop the duplicates that at-least-once
  -- delivery allows. The address is read from the row at send time, not copied: removing the row
  -- (an erasure request) removes its delivery with it, pending or not.
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  -- Start of the retry window (the signup's commit, or `deliveries --retry`).
  queued_at timestamptz not null default now(),
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  -- When the next attempt is due; while an attempt is in flight, when its lease ends.
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  last_error text,
  delivered_at timestamptz
);

create index if not exists signup_deliveries_due on private.signup_deliveries (run_at)
  where status = 'pending';

alter table private.signup_notify_settings enable row level security;
alter table private.signup_deliveries enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes them.
revoke all on table private.signup_notify_settings from public, anon, authenticated;
revoke all on table private.signup_deliveries from public, anon, authenticated;

-- Runs as its owner (SECURITY DEFINER), so anon's insert writes the outbox without anon having any
-- right on it; the fixed search_path keeps a caller's objects from standing in for ours.
create or replace function private.enqueue_signup_delivery()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  -- Imports carry their own created_at and must not announce old signups: they run
  -- `set local waitlist.skip_notify = 'on'` in their transaction.
  if coalesce(current_setting('waitlist.skip_notify', true), '') = 'on' then
    return null;
  end if;
  if not exists (select 1 from private.signup_notify_settings where enabled) then
    return null;
  end if;
  insert into private.signup_deliveries (waitlist_id) values (new.id);
  -- Wakes a listening deliverer when the signup commits (nothing is sent if it rolls back).
  perform pg_notify('signup_deliveries', '');
  return null;
end
$$;

revoke all on function private.enqueue_signup_delivery() from public, anon, authenticated;

drop trigger if exists waitlist_enqueue_signup_delivery on public.waitlist;
create trigger waitlist_enqueue_signup_delivery
  after insert on public.waitlist
  for each row execute function private.enqueue_signup_delivery();
