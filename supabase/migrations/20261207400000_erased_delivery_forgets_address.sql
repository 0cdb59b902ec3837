-- An entry.erased delivery forgets the erased address once it ends, delivered or failed (issue 61).
-- It carries the address only to be delivered; one that failed (its retry window passed, in the
-- pump or in each server's sweep of deliveries no server made: server/webhooks/erased-deliveries.ts)
-- will never be, so it keeps the address no longer. `deliveries --retry` leaves such a one alone.
drop trigger if exists webhook_deliveries_forget_erased_email on private.webhook_deliveries;
create trigger webhook_deliveries_forget_erased_email
  before update of status on private.webhook_deliveries
  for each row when (new.status in ('delivered', 'failed') and new.erased_email is not null)
  execute function private.forget_erased_email();

-- Those that failed before this migration forget theirs now.
update private.webhook_deliveries set erased_email = null where status = 'failed' and erased_email is not null;
