-- What a stranger controls never stops the lab's invitations (issue 40). Plain Postgres in
-- `private`, owner-only, as the invitations' migrations: this applies unchanged on hosted Supabase
-- and with an owner that is not a superuser.

-- Send health, one row per lane (the outbox's priority: 0 confirmations, 1 invitations and test
-- sends). Anyone can cause a confirmation, so its bounces and complaints are judged apart and pause
-- that lane alone. A pause in force before this migration holds both lanes until it is resumed.
alter table private.mail_health add column if not exists lane smallint not null default 1;
alter table private.mail_health drop constraint if exists mail_health_pkey;
alter table private.mail_health drop column if exists singleton;
alter table private.mail_health add constraint mail_health_pkey primary key (lane);
alter table private.mail_health drop constraint if exists mail_health_lane_check;
alter table private.mail_health add constraint mail_health_lane_check check (lane in (0, 1));
alter table private.mail_health alter column lane drop default;
insert into private.mail_health (lane, window_started_at, paused_at, pause_reason)
  select 0, window_started_at, paused_at, pause_reason from private.mail_health where lane = 1
  on conflict (lane) do nothing;

-- Each lane's window reads its latest sent messages by time.
create index if not exists mail_outbox_sent_by_lane on private.mail_outbox (priority, sent_at desc)
  where sent_at is not null;
drop index if exists private.mail_outbox_sent;

-- Confirmations are counted per mailbox, not per spelling: `mailbox` is the key of the mailbox an
-- entry's address reaches (mailbox_key below: a SHA-256, 32 bytes whatever the address), and
-- `confirmations` how many were queued for the entry; confirm_sent_at is now the last one's time,
-- the signup's included. Written only with CONFIRM_SIGNUPS on, so a signup without it writes here
-- what it wrote before: nothing. The keys live beside their entries, so erasing an entry (remove,
-- expiry) erases its key too.
alter table private.entry_status add column if not exists mailbox bytea;
alter table private.entry_status add column if not exists confirmations smallint not null default 0;
create index if not exists entry_status_mailbox on private.entry_status (mailbox) where mailbox is not null;

-- The mailbox an address reaches: lower-cased, a +tag dropped, and at Gmail (gmail.com and
-- googlemail.com, one mailbox) the dots dropped too. Hashed, so the key is fixed-size.
create or replace function private.mailbox_key(address text)
returns bytea
language sql
immutable
strict
parallel safe
set search_path = ''
as $$
  select sha256(convert_to(
           case when domain in ('gmail.com', 'googlemail.com') then replace(local, '.', '') || '@gmail.com'
                else local || '@' || domain end, 'UTF8'))
    from (select split_part(split_part(lowered, '@', 1), '+', 1) as local, split_part(lowered, '@', 2) as domain
            from (select lower(address) as lowered) as a) as parts
$$;

-- Whether a stranger's signup may queue a confirmation for this mailbox now: at most two in its
-- first hour (the second at least a minute after the first), then one an hour; never while an
-- entry of the mailbox, however spelled, unsubscribed, complained or bounced. Holds the mailbox's
-- advisory lock until the caller's transaction ends, so the caller's stamp is seen by the next
-- asker; while another transaction holds it, that one is queueing a confirmation for this mailbox
-- and this one need not (no wait, so no deadlock between two multi-row inserts).
create or replace function private.confirmation_due(box bytea)
returns boolean
language plpgsql
volatile
set search_path = ''
as $$
declare
  queued integer;
  last_queued timestamptz;
  refused boolean;
begin
  if not pg_try_advisory_xact_lock(73058712, ('x' || encode(substr(box, 1, 4), 'hex'))::bit(32)::integer) then
    return false;
  end if;
  select coalesce(sum(s.confirmations), 0), max(s.confirm_sent_at),
         coalesce(bool_or(s.status in ('unsubscribed', 'complained', 'bounced')), false)
    into queued, last_queued, refused
    from private.entry_status s where s.mailbox = box;
  return not refused and (queued = 0 or last_queued is null
      or last_queued <= now() - case when queued = 1 then interval '1 minute' else interval '1 hour' end);
end
$$;

revoke all on function private.mailbox_key(text) from public, anon, authenticated;
revoke all on function private.confirmation_due(bytea) from public, anon, authenticated;

-- The signup trigger, as before but for the confirmation: it is queued only when the mailbox is due
-- one (the entry is `unconfirmed` either way). With CONFIRM_SIGNUPS off it does exactly what it did.
create or replace function private.on_waitlist_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  notify boolean;
  confirm boolean;
  box bytea;
  due boolean;
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
    box := private.mailbox_key(new.email::text);
    due := private.confirmation_due(box);
    insert into private.entry_status (waitlist_id, status, mailbox, confirmations, confirm_sent_at)
      values (new.id, 'unconfirmed', box, case when due then 1 else 0 end, case when due then now() end);
    if due then
      insert into private.mail_outbox (waitlist_id, kind, priority, message_domain)
        select new.id, 'confirmation', 0, message_domain from private.mail_settings;
      perform pg_notify('mail_outbox', '');
    end if;
  end if;
  return null;
end
$$;

revoke all on function private.on_waitlist_insert() from public, anon, authenticated;

-- The entries of before that the limit reads: the unconfirmed (their signup's confirmation, and a
-- later one if stamped, count) and those that may never be mailed again. Entries that turn
-- unsubscribed, complained or bounced from now on keep the key they were given at signup.
update private.entry_status s
   set mailbox = private.mailbox_key(w.email::text),
       confirmations = case when s.status <> 'unconfirmed' then 0 when s.confirm_sent_at is null then 1 else 2 end,
       confirm_sent_at = case when s.status = 'unconfirmed' then coalesce(s.confirm_sent_at, w.created_at)
                              else s.confirm_sent_at end
  from public.waitlist w
 where w.id = s.waitlist_id and s.mailbox is null
   and s.status in ('unconfirmed', 'unsubscribed', 'complained', 'bounced');
