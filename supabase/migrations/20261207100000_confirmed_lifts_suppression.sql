-- Only a confirmed signup lifts an erased mailbox's keyed hash (issue 61, ADR 104). Until now the
-- signup trigger dropped the hash at insert, so anyone could undo an erasure: a stranger's signup
-- of another spelling of the mailbox (`M.A.R.Y.Smith+hi@googlemail.com` for
-- `mary.smith@gmail.com`) let the next import of an old file bring the person back in full, and
-- the hash stayed gone after the stranger's unconfirmed entry expired. Now the insert keeps the
-- hash and asks the mailbox to confirm, even with CONFIRM_SIGNUPS off: the link reaches only the
-- mailbox's owner, so following it is the one thing a stranger cannot do. The confirmation's own
-- transaction lifts the hash (server/waitlist/link-actions.ts, consent/suppression.ts), as
-- `unsuppress` does.

-- The signup trigger, as 20261205000000 left it, but the hash stays. Read with the settings in the
-- one query it already made: while nobody was erased, a look at an empty table and nothing more;
-- with CONFIRM_SIGNUPS on, every signup asks already and no hash is computed.
create or replace function private.on_waitlist_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  notify boolean;
  confirm boolean;
  erased boolean;
begin
  if coalesce(current_setting('waitlist.importing', true), '') = 'on' then
    return null;
  end if;
  select coalesce((select enabled from private.webhook_settings), false),
         coalesce((select confirm_signups from private.mail_settings), false),
         exists (select from private.suppressed)
    into notify, confirm, erased;
  if notify then
    insert into private.webhook_deliveries (waitlist_id) values (new.id);
    perform pg_notify('webhook_deliveries', '');
  end if;
  if erased and not confirm then
    confirm := exists (select from private.suppressed where hash = private.suppression_hash(new.email::text));
  end if;
  if confirm then
    perform private.queue_confirmation(new.id, private.mailbox_key(new.email::text), true);
  end if;
  return null;
end
$$;
revoke all on function private.on_waitlist_insert() from public, anon, authenticated;
