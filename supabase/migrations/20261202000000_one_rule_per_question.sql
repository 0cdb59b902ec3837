-- One rule per question (issue 49): who may be mailed, in one function that every query asks; the
-- statuses in their one order; a confirmation queued in one place; the webhooks under one name.
-- Plain Postgres in the owner-only `private` schema, as the invitations' migrations: applies
-- unchanged on hosted Supabase and with an owner that is not a superuser. anon's contract does not
-- change. Servers of an older version sharing the database read the webhooks' old table names:
-- upgrade them together (their pump logs that it cannot read the outbox until they restart).

-- The statuses in the order an entry moves through them (contract/entry-statuses.ts, tested
-- against this check): an import moves a listed entry on, never back, by this order.
alter table private.entry_status drop constraint if exists entry_status_status_check;
alter table private.entry_status add constraint entry_status_status_check
  check (status in ('unconfirmed', 'waiting', 'invited', 'joined', 'bounced', 'unsubscribed', 'complained'));

-- Who may be mailed: whether a message of `p_kind` may go to an entry in `p_status` (null: an
-- address on no entry, which only a test send has). The one rule: the sender's claim, its next-due
-- query, `deliveries --retry`, a test send, the per-mailbox limit and every status change ask it
-- (server/waitlist/entry-status.ts, whose test walks every status against every kind).
--   bounced, unsubscribed, complained: nothing, of any kind;
--   a confirmation: only while the entry is unconfirmed (there is nothing else to confirm);
--   an invitation: only while it is invited (the move to invited queues it);
--   a test: anyone else, listed or not (a test goes wherever mail of some kind may).
create or replace function private.may_mail(p_kind text, p_status text)
returns boolean
language sql
immutable
parallel safe
set search_path = ''
as $$
  select case
    when p_status in ('bounced', 'unsubscribed', 'complained') then false
    when p_kind = 'test' then true
    when p_kind = 'confirmation' then p_status is not distinct from 'unconfirmed'
    when p_kind = 'invitation' then p_status is not distinct from 'invited'
    else false
  end
$$;

-- The status of the entry a message goes to: its own entry's (no status row is `waiting`), else,
-- for a test send, the status of the entry listed at its address in any letter case; null for an
-- address on no entry.
create or replace function private.recipient_status(p_waitlist_id bigint, p_address text)
returns text
language sql
stable
parallel safe
set search_path = ''
as $$
  select coalesce(s.status, 'waiting')
    from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
   where w.id = p_waitlist_id
  union all
  select coalesce(s.status, 'waiting')
    from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
   where p_waitlist_id is null and w.email operator(extensions.=) p_address::extensions.citext
  limit 1
$$;

revoke all on function private.may_mail(text, text) from public, anon, authenticated;
revoke all on function private.recipient_status(bigint, text) from public, anon, authenticated;

-- Messages queued before this version that the rule refuses (a retried message of an entry that
-- bounced since, a confirmation of an entry confirmed meanwhile) are cancelled: nothing waits for ever.
update private.mail_outbox o set status = 'cancelled'
 where o.status = 'pending' and not private.may_mail(o.kind, private.recipient_status(o.waitlist_id, o.test_address));

-- The per-mailbox limit of ADR 075, as before, but a mailbox is refused by the rule: when an entry
-- of it, however spelled, may get no mail at all.
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
         coalesce(bool_or(not private.may_mail('test', s.status)), false)
    into queued, last_queued, refused
    from private.entry_status s where s.mailbox = box;
  return not refused and (queued = 0 or last_queued is null
      or last_queued <= now() - case when queued = 1 then interval '1 minute' else interval '1 hour' end);
end
$$;

-- Queueing a confirmation, in one place: the signup trigger (a new entry, made `unconfirmed` here)
-- and a confirmation asked for again (a repeat signup, `invite --confirm`; an entry still
-- `unconfirmed`) both call it. Under the mailbox's limit when `p_limited` (private.confirmation_due:
-- a stranger's signup), else on the owner's word. The stamp (confirm_sent_at, restarting
-- CONFIRM_EXPIRE_DAYS; confirmations; the mailbox's key) and the message are written together.
-- True when a confirmation was queued.
create or replace function private.queue_confirmation(p_waitlist_id bigint, p_box bytea, p_limited boolean)
returns boolean
language plpgsql
volatile
set search_path = ''
as $$
declare
  due boolean := not p_limited or private.confirmation_due(p_box);
begin
  insert into private.entry_status as s (waitlist_id, status, mailbox, confirmations, confirm_sent_at)
    values (p_waitlist_id, 'unconfirmed', p_box, case when due then 1 else 0 end, case when due then now() end)
  on conflict (waitlist_id) do update
    set confirm_sent_at = now(), confirmations = s.confirmations + 1, mailbox = excluded.mailbox, updated_at = now()
    where s.status = 'unconfirmed' and due;
  if not found or not due then
    return false;
  end if;
  insert into private.mail_outbox (waitlist_id, kind, priority, message_domain)
    select p_waitlist_id, 'confirmation', 0, message_domain from private.mail_settings;
  perform pg_notify('mail_outbox', '');
  return true;
end
$$;

revoke all on function private.queue_confirmation(bigint, bytea, boolean) from public, anon, authenticated;

-- The webhooks go by one name: their outbox and their settings.
alter table private.signup_deliveries rename to webhook_deliveries;
alter table private.webhook_deliveries rename constraint signup_deliveries_pkey to webhook_deliveries_pkey;
alter table private.webhook_deliveries
  rename constraint signup_deliveries_waitlist_id_fkey to webhook_deliveries_waitlist_id_fkey;
alter table private.webhook_deliveries rename constraint signup_deliveries_event_check to webhook_deliveries_event_check;
alter table private.webhook_deliveries
  rename constraint signup_deliveries_status_check to webhook_deliveries_status_check;
alter index private.signup_deliveries_due rename to webhook_deliveries_due;
alter index private.signup_deliveries_entry rename to webhook_deliveries_entry;
alter sequence if exists private.signup_deliveries_id_seq rename to webhook_deliveries_id_seq;
alter table private.signup_notify_settings rename to webhook_settings;
alter table private.webhook_settings rename constraint signup_notify_settings_pkey to webhook_settings_pkey;
alter table private.webhook_settings
  rename constraint signup_notify_settings_singleton_check to webhook_settings_singleton_check;

-- The signup trigger: the webhook's delivery under its new names, and the confirmation through
-- queue_confirmation. An import (`waitlist.importing`, set for its transaction) carries its own
-- statuses: it announces and mails nothing. With CONFIRM_SIGNUPS off an insert does what it did.
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
  if coalesce(current_setting('waitlist.importing', true), '') = 'on' then
    return null;
  end if;
  select coalesce((select enabled from private.webhook_settings), false),
         coalesce((select confirm_signups from private.mail_settings), false)
    into notify, confirm;
  if notify then
    insert into private.webhook_deliveries (waitlist_id) values (new.id);
    perform pg_notify('webhook_deliveries', '');
  end if;
  if confirm then
    perform private.queue_confirmation(new.id, private.mailbox_key(new.email::text), true);
  end if;
  return null;
end
$$;
