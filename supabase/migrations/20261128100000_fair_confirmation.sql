-- Confirmation that strangers cannot abuse, and the owner's test send (issue 30, items 4 and 5).
-- Plain Postgres in the `private` schema, as the invitations' migration: applies unchanged on hosted
-- Supabase and with an owner that is not a superuser. The signup trigger is left as it is, so a
-- normal insert pays exactly what it paid before.

-- When the last confirmation was queued for an unconfirmed entry other than the signup's own (a
-- repeat signup, `invite --confirm`); null means only the signup's, at the row's created_at.
-- A repeat signup queues another at most once an hour from it, and the entry expires
-- CONFIRM_EXPIRE_DAYS after it.
alter table private.entry_status add column if not exists confirm_sent_at timestamptz;

-- The expiry's scan: the unconfirmed entries only (the signups of a flood until they expire).
create index if not exists entry_status_unconfirmed on private.entry_status (waitlist_id)
  where status = 'unconfirmed';

-- The two lanes of the shared pace: the priority of the message that took the last slot. While
-- both lanes have messages due, the next slot goes to the other lane, so confirmations and
-- invitations each get half of MAIL_PER_MINUTE, and either gets all of it while the other is empty.
alter table private.mail_pace add column if not exists last_lane smallint;

-- A test send (`invite --test ADDRESS`): an invitation to an address that is not an entry. It names
-- no waitlist row, carries its address until it is sent, and its links change nothing.
alter table private.mail_outbox alter column waitlist_id drop not null;
alter table private.mail_outbox add column if not exists test_address text;
alter table private.mail_outbox drop constraint if exists mail_outbox_kind_check;
alter table private.mail_outbox add constraint mail_outbox_kind_check
  check (kind in ('invitation', 'confirmation', 'test'));
alter table private.mail_outbox drop constraint if exists mail_outbox_entry_or_test;
alter table private.mail_outbox add constraint mail_outbox_entry_or_test
  check (kind = 'test' or waitlist_id is not null);
