-- Beta invitations (issue 22): each entry's status beside public.waitlist, the mail outbox the
-- server sends from at least once, the sending pace shared by every server on this database
-- (MAIL_PER_MINUTE), and the webhook events a CRM needs beside the signup.
-- Plain Postgres in the `private` schema, which anon and authenticated cannot name: this applies
-- unchanged on hosted Supabase and with an owner that is not a superuser. anon's contract does not
-- change: it may insert an e-mail into public.waitlist and nothing else.

-- One row per entry that has a status other than the default: an entry without a row is `waiting`.
-- Signups with confirmation off therefore write nothing here, and the insert path stays as it was.
create table if not exists private.entry_status (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  status text not null check (status in ('unconfirmed', 'waiting', 'invited', 'unsubscribed', 'bounced')),
  confirmed_at timestamptz,
  invited_at timestamptz,
  unsubscribed_at timestamptz,
  bounced_at timestamptz,
  updated_at timestamptz not null default now()
);

create index if not exists entry_status_by_status on private.entry_status (status);

-- The mail outbox: one row per message (an invitation or a confirmation), written in the same
-- transaction that gives the entry its status. The address is read from the waitlist row at send
-- time, never copied: erasing the row erases its messages, pending or not.
create table if not exists private.mail_outbox (
  id bigint generated always as identity primary key,
  -- The Message-ID's left part (<uuid@message_domain>) and the invite code's subject: fixed when the
  -- message is queued, so every retry carries the same ones.
  uuid uuid not null default gen_random_uuid() unique,
  waitlist_id bigint not null references public.waitlist (id) on delete cascade,
  kind text not null check (kind in ('invitation', 'confirmation')),
  -- Confirmations (0) go before invitations (1): a person who just signed up is waiting for one.
  priority smallint not null default 1,
  message_domain text not null,
  status text not null default 'pending'
    check (status in ('pending', 'sent', 'failed', 'bounced', 'cancelled')),
  -- Start of the retry window (the queueing, or `deliveries --retry`).
  queued_at timestamptz not null default now(),
  -- When the next attempt is due; while an attempt is in flight, when its lease ends.
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  last_error text,
  sent_at timestamptz
);

create index if not exists mail_outbox_due on private.mail_outbox (priority, run_at) where status = 'pending';
create index if not exists mail_outbox_entry on private.mail_outbox (waitlist_id);

-- One row, written by each server at start-up: whether new signups get a confirmation message
-- (CONFIRM_SIGNUPS), the domain of MAIL_FROM for their Message-IDs, and whether a server that can
-- send (SMTP_URL) has started on this database.
create table if not exists private.mail_settings (
  singleton boolean primary key default true check (singleton),
  confirm_signups boolean not null default false,
  message_domain text not null default 'localhost',
  sender_configured boolean not null default false,
  updated_at timestamptz not null default now()
);

-- MAIL_PER_MINUTE for all servers together: the earliest time the next message may start. Each
-- server takes a slot by moving it on by 60 s / MAIL_PER_MINUTE (server/waitlist/invitations/mail-pace.ts).
create table if not exists private.mail_pace (
  singleton boolean primary key default true check (singleton),
  next_slot timestamptz not null default now()
);
insert into private.mail_pace (singleton) values (true) on conflict do nothing;

alter table private.entry_status enable row level security;
alter table private.mail_outbox enable row level security;
alter table private.mail_settings enable row level security;
alter table private.mail_pace enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes them.
revoke all on table private.entry_status from public, anon, authenticated;
revoke all on table private.mail_outbox from public, anon, authenticated;
revoke all on table private.mail_settings from public, anon, authenticated;
revoke all on table private.mail_pace from public, anon, authenticated;

-- The signup webhook's outbox carries more than signups now: entry.confirmed, invitation.sent and
-- entry.unsubscribed go through the same signed, at-least-once delivery. One row per event, so the
-- key is an id of its own; waitlist_id still cascades, so an erasure drops every event of the address.
alter table private.signup_deliveries drop constraint if exists signup_deliveries_pkey;
alter table private.signup_deliveries add column if not exists id bigint generated always as identity primary key;
alter table private.signup_deliveries add column if not exists event text not null default 'waitlist.signup'
  check (event in ('waitlist.signup', 'entry.confirmed', 'invitation.sent', 'entry.unsubscribed'));
-- When the event happened (null for a signup: its time is the row's created_at).
alter table private.signup_deliveries add column if not exists occurred_at timestamptz;
create index if not exists signup_deliveries_entry on private.signup_deliveries (waitlist_id);

-- What a signup sets off, in its own transaction: its webhook delivery (while a server with
-- SIGNUP_WEBHOOK_URL has switched them on) and, with CONFIRM_SIGNUPS, its `unconfirmed` status and
-- confirmation message. One trigger reading both switches in one query, so the insert path pays for
-- one function call, as before. SECURITY DEFINER with a fixed search_path, as the trigger it replaces.
create or replace function private.on_waitlist_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  notify boolean;
  confirm boolean;
begin
  -- Imports carry their own statuses and must not announce or mail old signups.
  if coalesce(current_setting('waitlist.skip_notify', true), '') = 'on' then
    return null;
  end if;
  select coalesce((select enabled from private.signup_notify_settings), false),
         coalesce((select confirm_signups from private.mail_settings), false)
    into notify, confirm;
  if notify then
    insert into private.signup_deliveries (waitlist_id) values (new.id);
    perform pg_notify('signup_deliveries', '');
  end if;
  if confirm then
    insert into private.entry_status (waitlist_id, status) values (new.id, 'unconfirmed');
    insert into private.mail_outbox (waitlist_id, kind, priority, message_domain)
      select new.id, 'confirmation', 0, message_domain from private.mail_settings;
    perform pg_notify('mail_outbox', '');
  end if;
  return null;
end
$$;

revoke all on function private.on_waitlist_insert() from public, anon, authenticated;

drop trigger if exists waitlist_enqueue_signup_delivery on public.waitlist;
drop function if exists private.enqueue_signup_delivery();
drop trigger if exists waitlist_on_insert on public.waitlist;
create trigger waitlist_on_insert
  after insert on public.waitlist
  for each row execute function private.on_waitlist_insert();
