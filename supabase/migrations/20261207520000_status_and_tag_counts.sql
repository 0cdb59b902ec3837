-- Entries by status, and by the team's tags, kept by triggers beside the list as the per-day counts
-- are (20261125210000_waitlist_day_counts.sql, docs/decisions/115-status-counts-kept-beside-the-list.md):
-- the studio's summary, its status filter's count and the invite preview read a row per status or
-- tag and per write since the last fold, never the status table nor the marks. Exact: a count
-- changes when, and only if, its rows commit.
--
-- A write appends its change to the deltas and touches no existing row, so writers never wait for
-- one another; readers fold the deltas into the counts (server/waitlist/admin/status-counts.ts,
-- entry-marks.ts) and add what is left of them.

create table if not exists private.entry_status_counts (
  status text primary key,
  entries bigint not null
);

-- No key and no index: rows are only ever appended, then all taken away by a fold.
create table if not exists private.entry_status_deltas (
  status text not null,
  entries bigint not null
);

alter table private.entry_status_counts enable row level security;
alter table private.entry_status_deltas enable row level security;
-- No policies and no grants: only the owner reads them; the triggers write them as their owner.
revoke all on table private.entry_status_counts from public, anon, authenticated;
revoke all on table private.entry_status_deltas from public, anon, authenticated;

-- Statement-level with transition tables: an import or a batch of invitations appends a row per
-- status it changed, not one per entry. An insert adds (`added`), a delete takes away (`removed`,
-- an erasure's cascade among them), an update moves entries from their old status to their new one
-- and appends nothing when no status changed.
create or replace function private.count_statuses_changed()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into private.entry_status_deltas (status, entries)
    select status, count(*) from added group by 1;
  elsif tg_op = 'DELETE' then
    insert into private.entry_status_deltas (status, entries)
    select status, -count(*) from removed group by 1;
  else
    insert into private.entry_status_deltas (status, entries)
    select status, sum(n)
      from (select status, -1 as n from removed union all select status, 1 from added) as moved
     group by 1
    having sum(n) <> 0;
  end if;
  return null;
end
$$;

create or replace function private.count_statuses_truncated()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from private.entry_status_deltas;
  delete from private.entry_status_counts;
  return null;
end
$$;

revoke all on function private.count_statuses_changed() from public, anon, authenticated;
revoke all on function private.count_statuses_truncated() from public, anon, authenticated;

-- Writes wait until the counts below and the triggers are in place together (reads go on).
lock table private.entry_status in share row exclusive mode;

drop trigger if exists entry_status_count_added on private.entry_status;
create trigger entry_status_count_added
  after insert on private.entry_status
  referencing new table as added
  for each statement execute function private.count_statuses_changed();

drop trigger if exists entry_status_count_moved on private.entry_status;
create trigger entry_status_count_moved
  after update on private.entry_status
  referencing old table as removed new table as added
  for each statement execute function private.count_statuses_changed();

drop trigger if exists entry_status_count_removed on private.entry_status;
create trigger entry_status_count_removed
  after delete on private.entry_status
  referencing old table as removed
  for each statement execute function private.count_statuses_changed();

drop trigger if exists entry_status_count_truncated on private.entry_status;
create trigger entry_status_count_truncated
  after truncate on private.entry_status
  for each statement execute function private.count_statuses_truncated();

delete from private.entry_status_deltas;
delete from private.entry_status_counts;
insert into private.entry_status_counts (status, entries)
select status, count(*) from private.entry_status group by 1;

-- The team's tags (private.entry_marks), the same way: how many entries carry each tag, for the
-- studio's tag filter. A tag appears once in an entry's tags (entry-marks.ts keeps them so).
create table if not exists private.entry_tag_counts (
  tag text primary key,
  entries bigint not null
);

create table if not exists private.entry_tag_deltas (
  tag text not null,
  entries bigint not null
);

alter table private.entry_tag_counts enable row level security;
alter table private.entry_tag_deltas enable row level security;
revoke all on table private.entry_tag_counts from public, anon, authenticated;
revoke all on table private.entry_tag_deltas from public, anon, authenticated;

-- A note changed, or tags left as they were, append nothing.
create or replace function private.count_tags_changed()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into private.entry_tag_deltas (tag, entries)
    select tag, count(*) from added, unnest(added.tags) as tag group by 1;
  elsif tg_op = 'DELETE' then
    insert into private.entry_tag_deltas (tag, entries)
    select tag, -count(*) from removed, unnest(removed.tags) as tag group by 1;
  else
    insert into private.entry_tag_deltas (tag, entries)
    select tag, sum(n)
      from (select tag, -1 as n from removed, unnest(removed.tags) as tag
            union all
            select tag, 1 from added, unnest(added.tags) as tag) as moved
     group by 1
    having sum(n) <> 0;
  end if;
  return null;
end
$$;

create or replace function private.count_tags_truncated()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from private.entry_tag_deltas;
  delete from private.entry_tag_counts;
  return null;
end
$$;

revoke all on function private.count_tags_changed() from public, anon, authenticated;
revoke all on function private.count_tags_truncated() from public, anon, authenticated;

lock table private.entry_marks in share row exclusive mode;

drop trigger if exists entry_marks_count_added on private.entry_marks;
create trigger entry_marks_count_added
  after insert on private.entry_marks
  referencing new table as added
  for each statement execute function private.count_tags_changed();

drop trigger if exists entry_marks_count_moved on private.entry_marks;
create trigger entry_marks_count_moved
  after update on private.entry_marks
  referencing old table as removed new table as added
  for each statement execute function private.count_tags_changed();

drop trigger if exists entry_marks_count_removed on private.entry_marks;
create trigger entry_marks_count_removed
  after delete on private.entry_marks
  referencing old table as removed
  for each statement execute function private.count_tags_changed();

drop trigger if exists entry_marks_count_truncated on private.entry_marks;
create trigger entry_marks_count_truncated
  after truncate on private.entry_marks
  for each statement execute function private.count_tags_truncated();

delete from private.entry_tag_deltas;
delete from private.entry_tag_counts;
insert into private.entry_tag_counts (tag, entries)
select tag, count(*) from private.entry_marks, unnest(tags) as tag group by 1;
