-- Each person's name, and what an import brought that has no field of its own (issue 64).
-- Both live beside the entry, not on public.waitlist: the page's insert writes neither, so it costs
-- the insert nothing. A name comes from an import, the confirmation page or an agent's proposal the
-- person kept; `given_name` only when the source split it (a first-name column), else the greeting
-- takes the name's first word. Details are the import's other columns, header → value, kept as the
-- file had them and shown to the person in their copy. Both go with the entry (erasure deletes it).
create table if not exists private.entry_names (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  name text not null
    constraint entry_names_name check (char_length(name) between 1 and 200 and name = btrim(name)),
  given_name text
    constraint entry_names_given_name check (
      given_name is null or (char_length(given_name) between 1 and 100 and given_name = btrim(given_name))),
  updated_at timestamptz not null default now()
);
alter table private.entry_names enable row level security;
-- The studio sorts and searches by name: lower case, so "ada" finds "Ada Lovelace".
create index if not exists entry_names_sort on private.entry_names (lower(name), waitlist_id);

create table if not exists private.entry_details (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  details jsonb not null
    constraint entry_details_details check (
      jsonb_typeof(details) = 'object' and octet_length(details::text) <= 8192),
  updated_at timestamptz not null default now()
);
alter table private.entry_details enable row level security;
revoke all on table private.entry_names from public, anon, authenticated;
revoke all on table private.entry_details from public, anon, authenticated;
