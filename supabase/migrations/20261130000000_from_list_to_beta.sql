-- From the list to the beta (issue 43): each signup keeps the name of its source, an entry may
-- carry optional answers, the lab invites in batches it can count, the beta product tells the
-- waitlist who came (`joined`), and an entry's history is kept for `show`. Plain Postgres in
-- `public` and the owner-only `private` schema: applies unchanged on hosted Supabase and with an
-- owner that is not a superuser. anon's contract does not change: it may insert an e-mail into
-- public.waitlist and nothing else; it can neither set nor read a source or an answer.

-- The signup's source, as the sources report names it (a utm_source, the referring site, direct,
-- (api), mcp). The server sets it for the insert's transaction (set_config('request.source', …)),
-- beside the key's role and claims, so no client writes it: anon has no privilege on the column.
-- Null for entries from before, for imports without one, and where counting by source is off.
alter table public.waitlist
  add column if not exists source text
    default nullif(current_setting('request.source', true), '')
    check (source is null or char_length(source) between 1 and 100);
-- `list --source`, the studio's filter and the funnel by source: a source's entries, newest first.
create index if not exists waitlist_source on public.waitlist (source, created_at desc, id desc);

-- Optional answers to the lab's questions (contract/site-config.ts, signupQuestions), given on the
-- confirmation page, by an agent's tool call, or by an import. Personal data: owner-only, erased
-- with the entry (cascade: `remove`, the confirmation's expiry).
create table if not exists private.entry_answers (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  answers jsonb not null check (jsonb_typeof(answers) = 'object' and octet_length(answers::text) <= 4096),
  updated_at timestamptz not null default now()
);
-- `--answer role=Research`: containment through the index.
create index if not exists entry_answers_values on private.entry_answers using gin (answers jsonb_path_ops);

-- `joined`: the beta product redeemed the entry's invite code (POST /rest/v1/rpc/redeem_invite).
alter table private.entry_status drop constraint if exists entry_status_status_check;
alter table private.entry_status add constraint entry_status_status_check
  check (status in ('unconfirmed', 'waiting', 'invited', 'joined', 'unsubscribed', 'bounced', 'complained'));
alter table private.entry_status add column if not exists joined_at timestamptz;

-- One `invite` run (the CLI's or the studio's): when, by which tool, how many, chosen how. The funnel
-- counts its invitations and who of them joined.
create table if not exists private.invite_batches (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  invited_by text not null check (invited_by in ('cli', 'studio')),
  size integer not null check (size >= 0),
  chosen_by text check (char_length(chosen_by) <= 500)
);
alter table private.mail_outbox
  add column if not exists batch_id bigint references private.invite_batches (id) on delete set null,
  add column if not exists redeemed_at timestamptz;
create index if not exists mail_outbox_batch on private.mail_outbox (batch_id) where batch_id is not null;

-- What happened to an entry, oldest first, for `show`: each status change (entry-status.ts) and each
-- provider event. Messages are read from the mail outbox itself. Erased with the entry.
create table if not exists private.entry_events (
  id bigint generated always as identity primary key,
  waitlist_id bigint not null references public.waitlist (id) on delete cascade,
  at timestamptz not null default now(),
  event text not null check (char_length(event) between 1 and 40),
  detail text check (char_length(detail) <= 300)
);
create index if not exists entry_events_entry on private.entry_events (waitlist_id, id);

alter table private.entry_answers enable row level security;
alter table private.invite_batches enable row level security;
alter table private.entry_events enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes them.
revoke all on table private.entry_answers from public, anon, authenticated;
revoke all on table private.invite_batches from public, anon, authenticated;
revoke all on table private.entry_events from public, anon, authenticated;

-- The webhook hears of a redeemed invitation.
alter table private.signup_deliveries drop constraint if exists signup_deliveries_event_check;
alter table private.signup_deliveries add constraint signup_deliveries_event_check
  check (event in ('waitlist.signup', 'entry.confirmed', 'invitation.sent', 'entry.joined',
                   'entry.unsubscribed', 'entry.bounced', 'entry.complained', 'mail.paused'));
