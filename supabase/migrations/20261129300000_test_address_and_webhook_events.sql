-- Issue 41: a test send forgets its address whatever becomes of it, and the signup webhook gets
-- only the event types SIGNUP_WEBHOOK_EVENTS chooses. Plain Postgres in the `private` schema, as
-- the invitations' migration: applies unchanged on hosted Supabase and with an owner that is not a
-- superuser. The signup trigger is left as it is, so an insert pays exactly what it paid before.

-- A test send (`invite --test ADDRESS`) carries an address that is no entry's, kept only while the
-- message may still go out. Once the row leaves `pending` (sent, bounced, failed after its
-- retries, cancelled), whichever code moves it, the address is gone.
create or replace function private.forget_test_address()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.test_address := null;
  return new;
end
$$;

revoke all on function private.forget_test_address() from public, anon, authenticated;

drop trigger if exists mail_outbox_forget_test_address on private.mail_outbox;
create trigger mail_outbox_forget_test_address
  before update of status on private.mail_outbox
  for each row when (new.status <> 'pending' and new.test_address is not null)
  execute function private.forget_test_address();

-- The addresses earlier versions kept on tests that bounced or failed.
update private.mail_outbox set test_address = null where status <> 'pending' and test_address is not null;

-- The event types the webhook receives, other than waitlist.signup (which `enabled` alone decides,
-- read by the signup trigger): set by the server at start-up from SIGNUP_WEBHOOK_EVENTS, empty
-- when SIGNUP_WEBHOOK_URL is unset. Null until a server of this version starts: then `enabled`
-- decides for every type, as before.
alter table private.signup_notify_settings add column if not exists events text[];
