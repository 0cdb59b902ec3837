-- Signups per UTC day, kept by triggers in the writes' own transactions, so the studio's total and
-- chart and `stats` read a few hundred rows instead of counting a million on every request
-- (docs/decisions/033-studio-keyset-trigram-day-counts.md). Exact: a count changes when, and only
-- if, its rows commit.
--
-- One row per day and per shard, where a write's shard is its backend's pid modulo 64. A backend
-- runs one transaction at a time, so two signups contend for a count only when their backends share
-- a shard; a single row per day would make every concurrent signup wait for the previous one's
-- commit. Readers add the shards up.

create table if not exists private.waitlist_day_counts (
  day date not null,
  shard smallint not null,
  signups bigint not null,
  primary key (day, shard)
);

alter table private.waitlist_day_counts enable row level security;
-- No policies and no grants: only the owner reads it; the triggers write it as their owner.
revoke all on table private.waitlist_day_counts from public, anon, authenticated;

-- Statement-level with transition tables: an import of a million rows adds one count per day, not
-- a million. Both triggers name their transition table `changed`; an insert adds, a delete takes
-- away. Rows in `order by day`, so two writers sharing a shard lock its days in one order.
create or replace function private.count_signups_changed()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into private.waitlist_day_counts as counts (day, shard, signups)
  select (created_at at time zone 'UTC')::date, pg_backend_pid() % 64,
         case tg_op when 'INSERT' then count(*) else -count(*) end
    from changed group by 1 order by 1
  on conflict (day, shard) do update set signups = counts.signups + excluded.signups;
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
  insert into private.waitlist_day_counts as counts (day, shard, signups)
  select day, pg_backend_pid() % 64, signups
    from (values ((old.created_at at time zone 'UTC')::date, -1),
                 ((new.created_at at time zone 'UTC')::date, 1)) as moved (day, signups)
   order by day
  on conflict (day, shard) do update set signups = counts.signups + excluded.signups;
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

delete from private.waitlist_day_counts;
insert into private.waitlist_day_counts (day, shard, signups)
select (created_at at time zone 'UTC')::date, 0, count(*) from public.waitlist group by 1;
