-- The record of who did what (issue 61): what a stranger can cause at will is folded, and TRUNCATE
-- is refused as DELETE is. Plain Postgres in the owner-only `private` schema, as the team studio's
-- migration: applies unchanged on hosted Supabase and with an owner that is not a superuser.

-- How many more times a folded line happened: a failed sign-in with a passkey the team does not
-- know, a refused request. The same thing (who, what, how, from which network) within an hour of
-- its line adds one here instead of a line (server/audit/audit-fold.ts), so a flood costs one line
-- per network per hour. The record itself stays append-only; only this count rises beside it.
-- `fold_key` is the SHA-256 of what makes two lines the same, found by the index below.
create table if not exists private.audit_repeats (
  audit_id bigint primary key references private.audit_log (id),
  fold_key bytea not null check (octet_length(fold_key) = 32),
  repeats integer not null default 0 check (repeats >= 0)
);
create index if not exists audit_repeats_fold on private.audit_repeats (fold_key, audit_id);

-- A count beside the record only ever rises, and always stays beside its own line.
create or replace function private.audit_repeats_only_rise()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'UPDATE' then
    if new.audit_id = old.audit_id and new.fold_key = old.fold_key and new.repeats >= old.repeats then
      return new;
    end if;
  end if;
  raise exception 'the audit record is only ever added to' using errcode = '42501';
end
$$;
drop trigger if exists audit_repeats_only_rise on private.audit_repeats;
create trigger audit_repeats_only_rise before update or delete on private.audit_repeats
  for each row execute function private.audit_repeats_only_rise();
revoke all on function private.audit_repeats_only_rise() from public, anon, authenticated;

-- Row triggers do not fire on TRUNCATE: a statement trigger refuses it, for the record and the
-- counts beside it (a TRUNCATE … CASCADE of either reaches the other, and is refused the same way).
-- The database's owner can still drop a trigger; only a copy off the machine keeps the record
-- honest against them (docs/team-studio.md).
drop trigger if exists audit_log_no_truncate on private.audit_log;
create trigger audit_log_no_truncate before truncate on private.audit_log
  for each statement execute function private.audit_log_append_only();
drop trigger if exists audit_repeats_no_truncate on private.audit_repeats;
create trigger audit_repeats_no_truncate before truncate on private.audit_repeats
  for each statement execute function private.audit_log_append_only();

alter table private.audit_repeats enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes it.
revoke all on table private.audit_repeats from public, anon, authenticated;
