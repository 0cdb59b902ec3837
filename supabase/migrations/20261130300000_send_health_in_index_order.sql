-- Send health is read before every claim of the mail sender: each lane's last 1,000 messages sent,
-- newest first. On a young outbox (the first batch on a new list) the statistics still say a lane
-- has a handful of sent rows, so the planner reads every one of them through a bitmap and sorts
-- them: 3 ms a read at 10,000 sent, where the index read in its own order stops after 1,000 rows in
-- 0.7 ms. At one read per message that was a fifth of the mail's throughput (bench, 2026-11-27).
-- This function reads the index in order whatever the statistics say: no sort is planned in it.
create or replace function private.lane_window(p_lane smallint, p_since timestamptz, p_size integer)
returns table (status text, outcome text)
language sql
stable
set search_path = ''
set enable_sort = off
as $$
  select o.status, o.outcome from private.mail_outbox o
   where o.priority = p_lane and o.sent_at is not null and o.sent_at >= p_since
   order by o.sent_at desc
   limit p_size
$$;

revoke all on function private.lane_window(smallint, timestamptz, integer) from public, anon, authenticated;
