-- Only the person's answers count, and a stranger's bounces hold back only the stranger (issue 48,
-- items 3 and 4). Plain Postgres in `public` and the owner-only `private` schema: applies unchanged
-- on hosted Supabase and with an owner that is not a superuser. anon's contract does not change: it
-- may insert an e-mail and nothing else; it can neither set nor read a network or an answer.

-- An agent's answers (MCP, WebMCP) for an address not yet confirmed: held apart from the kept ones
-- (private.entry_answers), which filters, export and the funnel read, until the person keeps,
-- changes or clears them on the confirmation page. Erased with the entry, as the kept ones.
create table if not exists private.proposed_answers (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  answers jsonb not null check (jsonb_typeof(answers) = 'object' and octet_length(answers::text) <= 4096),
  proposed_at timestamptz not null default now()
);
alter table private.proposed_answers enable row level security;
revoke all on table private.proposed_answers from public, anon, authenticated;

-- The network a signup came from, as the server names it for the insert's transaction
-- (set_config('request.network', …), beside the key's role and the source), so no client writes
-- it: an IPv4 /24, or the /64 an IPv6 host usually holds (server/rate-limit/client-network.ts).
-- The check keeps that cut explicit: a shorter form (logs, consent) is made from it, never stored
-- in its place. Null for entries from before, for imports, and where no address was known.
alter table public.waitlist
  add column if not exists signup_network cidr
    default nullif(current_setting('request.network', true), '')::cidr
    constraint waitlist_signup_network_cut
      check (signup_network is null or masklen(signup_network) = case family(signup_network) when 4 then 24 else 64 end);

-- A network whose confirmations bounced past MAIL_PAUSE_BOUNCE_RATE with at least
-- MAIL_PAUSE_MIN_BOUNCES: its confirmations wait until `paused_until` (or `deliveries --resume`,
-- which sets it to now). Bounces sent before `paused_until` no longer count against it, so the row
-- also marks where the network's next window starts.
create table if not exists private.network_pauses (
  network cidr primary key,
  paused_at timestamptz not null default now(),
  paused_until timestamptz not null,
  reason text not null check (char_length(reason) <= 300)
);
alter table private.network_pauses enable row level security;
revoke all on table private.network_pauses from public, anon, authenticated;

-- A paused network's confirmation waits where it is queued: its run_at is moved to the pause's end,
-- whichever way it was queued (the signup, a repeat signup, `invite --confirm`) or made due again
-- (a retry, `deliveries --retry`). The claim and the next-due query then need no rule of their own.
create or replace function private.hold_paused_network()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  until timestamptz;
begin
  select p.paused_until into until
    from public.waitlist w join private.network_pauses p on p.network = w.signup_network
   where w.id = new.waitlist_id and p.paused_until > new.run_at;
  if until is not null then
    new.run_at := until;
  end if;
  return new;
end
$$;
revoke all on function private.hold_paused_network() from public, anon, authenticated;

drop trigger if exists mail_outbox_hold_paused_network on private.mail_outbox;
create trigger mail_outbox_hold_paused_network
  before insert or update of run_at on private.mail_outbox
  for each row when (new.kind = 'confirmation' and new.status = 'pending')
  execute function private.hold_paused_network();

-- The lane's window, with each message's entry and time: the confirmations' bounces are counted by
-- the entry's network. Still read in the index's order, with no sort planned.
drop function if exists private.lane_window(smallint, timestamptz, integer);
create function private.lane_window(p_lane smallint, p_since timestamptz, p_size integer)
returns table (status text, outcome text, waitlist_id bigint, sent_at timestamptz)
language sql
stable
set search_path = ''
set enable_sort = off
as $$
  select o.status, o.outcome, o.waitlist_id, o.sent_at from private.mail_outbox o
   where o.priority = p_lane and o.sent_at is not null and o.sent_at >= p_since
   order by o.sent_at desc
   limit p_size
$$;
revoke all on function private.lane_window(smallint, timestamptz, integer) from public, anon, authenticated;
