-- Every number and every code means one thing (issue 51): the webhook tells the chat when a person
-- keeps their answers on the confirmation page (entry.answered). Plain Postgres in the owner-only
-- `private` schema: applies unchanged on hosted Supabase and with an owner that is not a superuser.
-- anon's contract does not change.
alter table private.webhook_deliveries drop constraint if exists webhook_deliveries_event_check;
alter table private.webhook_deliveries add constraint webhook_deliveries_event_check
  check (event in ('waitlist.signup', 'entry.confirmed', 'entry.answered', 'invitation.sent', 'entry.joined',
                   'entry.unsubscribed', 'entry.bounced', 'entry.complained', 'mail.paused'));
