-- Signups per UTC day, kept by triggers in the writes' own transactions, so the studio's total and
-- chart and `stats` read a few hundred rows instead of counting a million on every request
-- (docs/decisions/033-studio-keyset-trigram-day-counts.md). Exact: a count changes when, and only
-- if, its rows commit.
--
-- A write appends its change to waitlist_day_deltas and touches no existing row: concurrent signups
-- never wait for one another or fight over one page of counts (an upsert of shared count rows cost
-- PostgreSQL about 90 µs more per insert at 50 clients). Readers fold the deltas into
-- waitlist_day_counts (server/waitlist/admin/day-counts.ts) and add what is left of them.

create table if not exists private.waitlist_day_counts (
  day date primary key,
  signups bigint not null
);

-- No key and no index: rows are only ever appended, then all taken away by a fold.
create table if not exists private.waitlist_day_deltas (
  day date not null,
  signups bigint not null
);

alter table private.waitlist_day_counts enable row level security;
alter table private.waitlist_day_deltas enable row level security;
-- No policies and no grants: only the owner reads them; the triggers write them as their owner.
revoke all on table private.waitlist_day_counts from public, anon, authenticated;
revoke all on table private.waitlist_day_deltas from public, anon, authenticated;

-- Statement-level with transition tables: an import of a million rows appends one delta per day,
-- not a million. Both triggers name their transition table `changed`; an insert adds, a delete
-- takes away.
create or replace function private.count_signups_changed()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into private.waitlist_day_deltas (day, signups)
  select (created_at at time zone 'UTC')::date, case tg_op when 'INSERT' then count(*) else -count(*) end
    from changed group by 1;
  return null;
end
$$;

-- Nothing moves a signup to another day today; a hand-made UPDATE of created_at still counts right.
create or replace function private.count_signup_moved()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into private.waitlist_day_deltas (day, signups)
  values ((old.created_at at time zone 'UTC')::date, -1), ((new.created_at at time zone 'UTC')::date, 1);
  return null;
end
$$;

create or replace function private.count_signups_truncated()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from private.waitlist_day_deltas;
  delete from private.waitlist_day_counts;
  return null;
end
$$;

revoke all on function private.count_signups_changed() from public, anon, authenticated;
revoke all on function private.count_signup_moved() from public, anon, authenticated;
revoke all on function private.count_signups_truncated() from public, anon, authenticated;

-- Writes wait until the counts below and the triggers are in place together (reads go on).
lock table public.waitlist in share row exclusive mode;

drop trigger if exists waitlist_count_added on public.waitlist;
create trigger waitlist_count_added
  after insert on public.waitlist
  referencing new table as changed
  for each statement execute function private.count_signups_changed();

drop trigger if exists waitlist_count_removed on public.waitlist;
create trigger waitlist_count_removed
  after delete on public.waitlist
  referencing old table as changed
  for each statement execute function private.count_signups_changed();

drop trigger if exists waitlist_count_moved on public.waitlist;
create trigger waitlist_count_moved
  after update of created_at on public.waitlist
  for each row
  when ((old.created_at at time zone 'UTC')::date is distinct from (new.created_at at time zone 'UTC')::date)
  execute function private.count_signup_moved();

drop trigger if exists waitlist_count_truncated on public.waitlist;
create trigger waitlist_count_truncated
  after truncate on public.waitlist
  for each statement execute function private.count_signups_truncated();

delete from private.waitlist_day_deltas;
delete from private.waitlist_day_counts;
insert into private.waitlist_day_counts (day, signups)
select (created_at at time zone 'UTC')::date, count(*) from public.waitlist group by 1;
