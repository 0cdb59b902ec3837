-- Provider events and send health (issue 30, ADRs 043-045): bounces and complaints reported by the
-- mail provider after it accepted a message, what they do to an entry, and the pause that stops a
-- batch hurting the sending domain's name. Plain Postgres in `private`, owner-only, like the
-- invitations' tables: this applies unchanged on hosted Supabase and with an owner that is not a
-- superuser.

-- `complained`: the person reported the mail as spam. Treated as `unsubscribed`, for good; its date
-- is kept in unsubscribed_at, so export's columns stay as they are.
alter table private.entry_status drop constraint if exists entry_status_status_check;
alter table private.entry_status add constraint entry_status_status_check
  check (status in ('unconfirmed', 'waiting', 'invited', 'unsubscribed', 'bounced', 'complained'));
-- Soft bounces in a row (reset by a delivery the provider reports); the third makes the entry bounced.
alter table private.entry_status add column if not exists soft_bounces smallint not null default 0;

-- What the provider later said of a sent message: a hard bounce or a complaint. Send health reads it.
alter table private.mail_outbox add column if not exists outcome text check (outcome in ('hard', 'complaint'));
-- Send health reads the latest sent messages by time.
create index if not exists mail_outbox_sent on private.mail_outbox (sent_at desc) where sent_at is not null;

-- The provider events already applied, by the provider's own event id, so a retried delivery of one
-- changes nothing the second time. Bounded: ids older than 30 days are dropped as new ones arrive
-- (providers retry for hours or a few days, not weeks).
create table if not exists private.mail_event_ids (
  provider text not null,
  event_id text not null check (length(event_id) <= 200),
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);
create index if not exists mail_event_ids_age on private.mail_event_ids (received_at);

-- Send health, for every server on this database: the window's start (`deliveries --resume` starts a
-- new one) and, while sending is paused, since when and why.
create table if not exists private.mail_health (
  singleton boolean primary key default true check (singleton),
  window_started_at timestamptz not null default now(),
  paused_at timestamptz,
  pause_reason text
);
insert into private.mail_health (singleton) values (true) on conflict do nothing;

alter table private.mail_event_ids enable row level security;
alter table private.mail_health enable row level security;
revoke all on table private.mail_event_ids from public, anon, authenticated;
revoke all on table private.mail_health from public, anon, authenticated;

-- The webhook learns of bounces, complaints and a pause. A pause is about no entry: its row has no
-- waitlist_id and carries its reason in `detail`.
alter table private.signup_deliveries drop constraint if exists signup_deliveries_event_check;
alter table private.signup_deliveries add constraint signup_deliveries_event_check
  check (event in ('waitlist.signup', 'entry.confirmed', 'invitation.sent', 'entry.unsubscribed',
                   'entry.bounced', 'entry.complained', 'mail.paused'));
alter table private.signup_deliveries alter column waitlist_id drop not null;
alter table private.signup_deliveries add column if not exists detail text;
